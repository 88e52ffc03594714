package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// The refresh issue's measurements that need corpora of their own: many
// small files (a no-op refresh), single sessions of given sizes (an append
// and the refresh that picks it up), one very large session (memory).
// Each corpus lives under --work, is kept and reused as the main one is,
// and gets its own index.

// smallSession caps the size of each file of the many-files corpus: files
// come out at 4–9 KB, most near 8 KB.
const smallSession = 8 << 10

// indexSummary is the JSON answer of `grove --json index`. BytesRead is
// nil when this grove does not report it (before incremental refresh).
type indexSummary struct {
	Files     int    `json:"files"`
	Indexed   int    `json:"indexed"`
	Appended  int    `json:"appended"`
	Unchanged int    `json:"unchanged"`
	Damaged   int    `json:"damaged"`
	Entries   int64  `json:"entries"`
	Removed   int    `json:"removed"`
	BytesRead *int64 `json:"bytes_read"`
}

// groveIndex runs `grove --db DB --json index --root ROOT` once.
func (s *suite) groveIndex(ctx context.Context, db, root string) (procRun, indexSummary, error) {
	var sum indexSummary
	r, err := runProc(ctx, nil, s.grove, []string{"--db", db, "--json", "index", "--root", root})
	if err != nil {
		return r, sum, err
	}
	if err := json.Unmarshal(r.Stdout, &sum); err != nil {
		return r, sum, fmt.Errorf("grove index output: %w: %s", err, r.Stdout)
	}
	return r, sum, nil
}

// auxOptions are the generator options of the step corpora: the defaults,
// with the run's seed and Chinese share.
func (s *suite) auxOptions() corpusgen.Options {
	o := corpusgen.DefaultOptions()
	o.Seed, o.ChineseShare = s.cfg.Corpus.Seed, s.cfg.Corpus.ChineseShare
	return o
}

// auxCorpus returns the directory WORK/name holding a corpus generated
// with o, and its manifest: reused when its manifest matches, generated
// otherwise (ensureCorpus's rules). flag names the option that sets its
// size, for the free-space message.
func (s *suite) auxCorpus(ctx context.Context, name string, o corpusgen.Options, flag string) (string, *corpusgen.Manifest, error) {
	dir := filepath.Join(s.cfg.Work, name)
	_, statErr := os.Stat(filepath.Join(dir, "manifest.json"))
	if err := checkSpace(s.cfg.Work, max(o.Size, o.BigSession), statErr == nil, flag); err != nil {
		return "", nil, err
	}
	start := time.Now()
	m, err := ensureCorpus(ctx, dir, o, false, s.log)
	if err != nil {
		return "", nil, err
	}
	if d := time.Since(start); d > 2*time.Second {
		fmt.Fprintf(s.log, "   generated in %.1f s\n", d.Seconds())
	}
	return dir, m, nil
}

// filesCorpus is the many-files corpus: exactly RefreshFiles sessions of
// at most smallSession bytes (pi's layout, one directory per workspace,
// about 100 files per workspace), and the path of its index.
func (s *suite) filesCorpus(ctx context.Context) (dir, db string, m *corpusgen.Manifest, err error) {
	n := s.cfg.RefreshFiles
	o := s.auxOptions()
	o.Files, o.MaxSession = n, smallSession
	o.Size = int64(n) * 2 * smallSession // Files is the limit that binds
	o.Workspaces = max(4, n/100)
	name := fmt.Sprintf("files-%d-seed%d", n, o.Seed)
	dir, m, err = s.auxCorpus(ctx, name, o, "--refresh-files")
	return dir, filepath.Join(s.cfg.Work, name+".db"), m, err
}

// manyFiles indexes the many-files corpus into an empty index Runs times,
// then times `grove index` with nothing changed (a no-op refresh), at
// least 5 times (refresh issue: ≤ 100 ms for 10,000 files).
func (s *suite) manyFiles(ctx context.Context) error {
	const sec = "many-files"
	if s.cfg.RefreshFiles == 0 {
		s.skip(sec, "no-op refresh", "--refresh-files 0")
		return nil
	}
	dir, db, m, err := s.filesCorpus(ctx)
	if err != nil {
		return err
	}
	var secs, mbps, eps, peak []float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(db)
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return err
		}
		if sum.Files != len(m.Files) {
			return fmt.Errorf("grove index saw %d files in %s, the manifest lists %d", sum.Files, dir, len(m.Files))
		}
		secs = append(secs, seconds(r.Wall))
		mbps = append(mbps, float64(m.Bytes)/1e6/r.Wall.Seconds())
		eps = append(eps, float64(sum.Entries)/r.Wall.Seconds())
		peak = append(peak, float64(r.PeakKB)/1024)
		fmt.Fprintf(s.log, "   cold run %d: %.2f s\n", i+1, r.Wall.Seconds())
	}
	cold := figureOf(sec, "cold index: wall time", "s", secs)
	cold.Note = fmt.Sprintf("%d files, %s, in %d workspaces", len(m.Files), mb(m.Bytes), len(m.Workspaces))
	s.add(cold)
	s.add(figureOf(sec, "cold index: throughput", "MB/s", mbps))
	s.add(figureOf(sec, "cold index: entries", "entries/s", eps))
	s.add(figureOf(sec, "cold index: peak RSS", "MB", peak))

	var lat, npeak []float64
	reread := 0
	for i := 0; i < max(s.cfg.Runs, 5); i++ {
		r, sum, err := s.groveIndex(ctx, db, dir)
		if err != nil {
			return err
		}
		reread += sum.Indexed + sum.Appended
		lat = append(lat, ms(r.Wall))
		npeak = append(npeak, float64(r.PeakKB)/1024)
	}
	f := figureOf(sec, "no-op refresh", "ms", lat)
	ratio := f.Median / (cold.Median * 1000)
	s.res.Ratios["noop_refresh_over_cold_index/many-files"] = ratio
	f.Note = fmt.Sprintf("%d unchanged files; %.4f× the cold index", len(m.Files), ratio)
	if reread > 0 {
		f.Note += fmt.Sprintf("; grove re-read %d files over %d runs", reread, len(lat))
	}
	s.add(f)
	s.add(figureOf(sec, "no-op refresh: peak RSS", "MB", npeak))
	return nil
}

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

// keepLength cuts file back to size if an interrupted earlier run left
// appends in it, and returns a function that cuts it back to size again
// and restores its modification time.
func keepLength(file string, size int64) (restore func(), err error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if fi.Size() < size {
		return nil, fmt.Errorf("%s is %d bytes, shorter than the %d generated: not the harness's file", file, fi.Size(), size)
	}
	if fi.Size() > size {
		if err := os.Truncate(file, size); err != nil {
			return nil, err
		}
	}
	return func() {
		os.Truncate(file, size)
		os.Chtimes(file, fi.ModTime(), fi.ModTime())
	}, nil
}
