package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// The append step: single sessions of given sizes, each a corpus of its
// own under --work with its own index: an entry appended and the refresh
// that picks it up, and how many bytes that refresh read.

// sizeLabel names a requested session size in figure names: "100.0 MB".
func sizeLabel(n int64) string { return corpusgen.FormatSize(n) + " session" }

// appendSessions measures, for each of AppendSizes, one generated pi
// session of that size in its own directory and index: its cold index,
// then Runs times a 1 KB message entry appended (O_APPEND) and `grove
// index` run again. The appends accumulate, so each refresh has only the
// newest 1 KB to read; the file is cut back to its generated length at
// the end so that the corpus can be reused.
func (s *suite) appendSessions(ctx context.Context) error {
	const sec = "append"
	if len(s.cfg.AppendSizes) == 0 {
		s.skip(sec, "refresh after a 1 KB append", "--append-sizes is empty")
		return nil
	}
	for _, size := range s.cfg.AppendSizes {
		if err := s.appendSession(ctx, sec, size); err != nil {
			return fmt.Errorf("%s: %w", sizeLabel(size), err)
		}
	}
	return nil
}

func (s *suite) appendSession(ctx context.Context, sec string, size int64) error {
	o := s.auxOptions()
	o.Size, o.BigSession = 0, size
	dir, m, err := s.auxCorpus(ctx, fmt.Sprintf("append-%d-seed%d", size, o.Seed), o, "--append-sizes")
	if err != nil {
		return err
	}
	gen := m.Files[0]
	file := filepath.Join(dir, filepath.FromSlash(gen.Path))
	restore, err := keepLength(file, gen.Bytes)
	if err != nil {
		return err
	}
	defer restore()
	db := filepath.Join(s.cfg.Work, fmt.Sprintf("append-%d.db", size))
	removeDB(db)
	defer removeDB(db)
	label := sizeLabel(size)

	r, sum, err := s.groveIndex(ctx, db, dir)
	if err != nil {
		return err
	}
	f := figureOf(sec, label+": cold index", "s", []float64{seconds(r.Wall)})
	f.Note = fmt.Sprintf("%s, %d entries, %.1f MB/s", mb(gen.Bytes), sum.Entries, float64(gen.Bytes)/1e6/r.Wall.Seconds())
	s.add(f)
	s.add(figureOf(sec, label+": cold index peak RSS", "MB", []float64{float64(r.PeakKB) / 1024}))

	parent, err := lastEntryID(file, gen.Bytes)
	if err != nil {
		return err
	}
	var lat, peak, read []float64
	measured := true
	appended, reindexed := 0, 0
	for i := 0; i < s.cfg.Runs; i++ {
		id := fmt.Sprintf("gb%06d", i) // not hex: never one of the generator's ids
		if err := appendLine(file, appendEntry(id, parent, i)); err != nil {
			return err
		}
		parent = id
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return err
		}
		lat = append(lat, ms(r.Wall))
		peak = append(peak, float64(r.PeakKB)/1024)
		appended, reindexed = appended+sum.Appended, reindexed+sum.Indexed
		if sum.BytesRead == nil {
			measured = false
		} else {
			read = append(read, float64(*sum.BytesRead))
		}
	}
	f = figureOf(sec, label+": refresh after a 1 KB append", "ms", lat)
	f.Note = fmt.Sprintf("%d appends of %d bytes, one refresh each", len(lat), appendBytes)
	f.Note += fmt.Sprintf("; grove said %d appended, %d indexed", appended, reindexed)
	s.add(f)
	s.add(figureOf(sec, label+": refresh peak RSS", "MB", peak))
	if !measured {
		s.skip(sec, label+": bytes read by the refresh", notMeasuredBytesRead)
		return nil
	}
	b := figureOf(sec, label+": bytes read by the refresh", "bytes", read)
	b.Note = fmt.Sprintf("%.2g of the file", b.Median/float64(gen.Bytes))
	s.add(b)
	return nil
}

// notMeasuredBytesRead is why the bytes-read figures can be missing.
const notMeasuredBytesRead = "not measured: grove index --json has no bytes_read (a grove before incremental refresh)"

// appendBytes is the length of each line appendEntry writes, LF included.
const appendBytes = 1024

// appendEntry is a pi version 3 user message entry of exactly appendBytes
// bytes with its LF: id, parentId, an ISO timestamp i seconds after
// 2027-01-01, and padding text.
func appendEntry(id, parent string, i int) string {
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	head := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"`,
		id, parent, at.Format("2006-01-02T15:04:05.000Z"))
	tail := fmt.Sprintf(`"}],"timestamp":%d}}`, at.UnixMilli()) + "\n"
	pad := appendBytes - len(head) - len(tail)
	text := strings.Repeat("appended by grove-bench ", pad/24+1)[:pad]
	return head + text + tail
}
