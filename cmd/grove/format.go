package main

import (
	"io"
	"text/tabwriter"
	"time"
)

// rfc3339 renders Unix milliseconds as an RFC 3339 time in UTC (SPEC §8),
// or nil when unknown.
func rfc3339(ms *int64) any {
	if ms == nil {
		return nil
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// short renders Unix milliseconds for people: UTC, to the minute.
func short(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02 15:04")
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
