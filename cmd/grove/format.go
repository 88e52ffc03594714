package main

import (
	"context"
	"slices"
	"time"

	"github.com/grove-sessions/grove/archive"
)

// short renders Unix milliseconds for people: UTC, to the minute.
func short(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02 15:04")
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

// fileColumn reports whether a listing of the sessions ids names each
// row's file: when another indexed session holds one of its ids (copies
// of one file), as the id does not tell them apart. An error of the index
// leaves the column out.
func fileColumn(ctx context.Context, a *archive.Archive, ids []string) bool {
	shared, err := a.SharedSessionIDs(ctx, ids)
	return err == nil && len(shared) > 0
}

// shortIDs gives each session id the shortest prefix of at least 8
// characters (the whole id when it has at most 16) that no other id of ids
// starts with: enough to tell the rows apart and, usually, to name the
// session on the command line (SPEC §3.3 takes unique prefixes). Sorted,
// an id needs one character more than it shares with either neighbour.
func shortIDs(ids []string) map[string]string {
	u := slices.Compact(slices.Sorted(slices.Values(ids)))
	out := make(map[string]string, len(u))
	for i, id := range u {
		need := 0
		if i > 0 {
			need = commonPrefix(u[i-1], id)
		}
		if i+1 < len(u) {
			need = max(need, commonPrefix(u[i+1], id))
		}
		r := []rune(id)
		if len(r) <= 16 {
			need = len(r)
		}
		out[id] = string(r[:min(len(r), max(8, need+1))])
	}
	return out
}

// commonPrefix is the number of runes a and b share at their start.
func commonPrefix(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n
}

// idColumns is how wide an entry or session id may be in a table or a
// listing line, in terminal columns: a UUID (36) fits; an absurd id of
// hundreds of characters is cut with "…" (--json keeps it whole).
const idColumns = 40

// idCell is an id as a table shows it: escaped (see cell), then clipped to
// idColumns.
func idCell(id string) string { return clipWidth(cell(id), idColumns) }

// nameColumns is how wide a session name or label may be in a table
// column, in terminal columns (wide CJK characters count two).
const nameColumns = 28
