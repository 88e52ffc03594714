package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/grove-sessions/grove/index"
	"github.com/urfave/cli/v2"
)

// The dump step: the main corpus indexed cold by a reference grove, cold
// by the grove measured, and cold then rebuilt, and the three indexes'
// canonical dumps (index.DumpFile) compared as they are made; and the
// dump subcommand, which prints or compares the dumps of index files.

// dumpStep compares index dumps (index.DumpFile) of the main corpus built
// three ways: a cold index by the reference grove (--dump-grove; the grove
// measured when not given), a cold index by the grove measured, and a cold
// index by the grove measured followed by `grove rebuild`. Each comparison
// is a figure of the dump lines that differ (0 when equal) and a target.
// The dumps are compared as they are made, never written; the index files
// are kept in WORK when they differ (grove-bench dump A B shows how).
func (s *suite) dumpStep(ctx context.Context) error {
	const sec = "dump"
	ref := s.cfg.DumpGrove
	refName := "this grove"
	if ref == "" {
		ref = s.grove
	} else {
		refName = ref
	}
	refDB := filepath.Join(s.cfg.Work, "dump-ref.db")
	newDB := filepath.Join(s.cfg.Work, "dump-new.db")
	rebuiltDB := filepath.Join(s.cfg.Work, "dump-rebuilt.db")
	build := func(grove, db string, then ...string) error {
		removeDB(db)
		_, err := runProc(ctx, nil, grove, []string{"--db", db, "--json", "index", "--root", s.cfg.Dir})
		if err == nil && len(then) > 0 {
			_, err = runProc(ctx, nil, grove, append([]string{"--db", db, "--json"}, then...))
		}
		return err
	}
	if err := build(ref, refDB); err != nil {
		return fmt.Errorf("reference grove: %w", err)
	}
	if err := build(s.grove, newDB); err != nil {
		return err
	}
	if err := build(s.grove, rebuiltDB, "rebuild"); err != nil {
		return err
	}
	start := time.Now()
	var n countWriter
	if err := index.DumpFile(ctx, refDB, &n, index.DumpOptions{Omit: s.cfg.DumpOmit}); err != nil {
		return err
	}
	f := figureOf(sec, "dump of one index", "s", []float64{time.Since(start).Seconds()})
	f.Note = fmt.Sprintf("%s of dump for %s of JSONL", mb(n.n), mb(s.m.Bytes))
	s.add(f)
	allEqual := true
	for _, c := range []struct{ what, a, b string }{
		{"cold index by " + refName + " = cold index by the grove measured", refDB, newDB},
		{"cold index = cold index then grove rebuild", newDB, rebuiltDB},
	} {
		d, err := compareIndexes(ctx, c.a, c.b, s.cfg.DumpOmit)
		if err != nil {
			return err
		}
		f := figureOf(sec, c.what, "differing lines", []float64{float64(d.Difference)})
		f.Note = d.String()
		if !d.Equal {
			allEqual = false
			f.Note += fmt.Sprintf(" (indexes kept: grove-bench dump %s %s)", c.a, c.b)
		}
		s.add(f)
		s.dumps = append(s.dumps, dumpComparison{c.what, d})
	}
	if allEqual {
		for _, db := range []string{refDB, newDB, rebuiltDB} {
			removeDB(db)
		}
	}
	return nil
}

// dumpComparison is one comparison of the dump step: what was compared,
// and how the dumps compare.
type dumpComparison struct {
	what string
	diff dumpDiff
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// errDumpsDiffer is dump's answer when two indexes dump differently: exit 1.
var errDumpsDiffer = errors.New("the two indexes dump differently")

func dumpCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "dump",
		Usage:     "print a canonical dump of a grove index file (sessions by path, entries by path and seq, diagnostics, labels, sources, search tokens), or compare two",
		ArgsUsage: "DB [DB2]",
		Description: `With one index file, its dump goes to stdout: one line per row, sorted, with
nothing that depends on how or in which order the index was built (row ids,
doc numbers but their seconds, indexed_at_ms, stat_key, the doc counter), so
two dumps of indexes of the same files compare with cmp. The file is opened
read-only: never migrated, never checkpointed.

With two, both are dumped at once and compared as they come (nothing is
written): "equal, N lines" and exit 0, or the first difference and exit 1.`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "omit", Usage: "also leave out these columns, as TABLE.COLUMN or *.COLUMN (a column only one of the two builds has); token.* leaves out the search tokens"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 || c.NArg() > 2 {
				return usageError{fmt.Errorf("dump: want DB or DB DB2, got %d arguments", c.NArg())}
			}
			var omit []string
			for _, v := range c.StringSlice("omit") {
				for _, col := range strings.Split(v, ",") {
					if t, k, ok := strings.Cut(strings.TrimSpace(col), "."); !ok || t == "" || k == "" {
						return usageError{fmt.Errorf("dump --omit: %q is not TABLE.COLUMN or *.COLUMN", col)}
					}
					omit = append(omit, strings.TrimSpace(col))
				}
			}
			if c.NArg() == 1 {
				return index.DumpFile(c.Context, c.Args().Get(0), stdout, index.DumpOptions{Omit: omit})
			}
			d, err := compareIndexes(c.Context, c.Args().Get(0), c.Args().Get(1), omit)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, d)
			if !d.Equal {
				return errDumpsDiffer
			}
			return nil
		},
	}
}

// dumpDiff is how two dumps compare: the lines of each, how many differ
// position by position, and, when they differ, the first line number that
// differs and both lines there ("" for a dump that ended).
type dumpDiff struct {
	Lines, LinesB int
	Equal         bool
	Difference    int // lines that differ position by position
	Line          int
	A, B          string
}

// compareIndexes dumps the index files a and b at once, each into a pipe,
// and compares the dumps as they come: no dump is written to disk (at
// 1 GB of JSONL a dump is about 12 GB).
func compareIndexes(ctx context.Context, a, b string, omit []string) (dumpDiff, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ra, wa := io.Pipe()
	rb, wb := io.Pipe()
	o := index.DumpOptions{Omit: omit}
	go func() { wa.CloseWithError(index.DumpFile(ctx, a, wa, o)) }()
	go func() { wb.CloseWithError(index.DumpFile(ctx, b, wb, o)) }()
	d, err := compareStreams(ra, rb)
	// Unblock and end both dumps whatever happened.
	ra.CloseWithError(io.ErrClosedPipe)
	rb.CloseWithError(io.ErrClosedPipe)
	return d, err
}

// compareStreams compares two dumps line by line, to the end of both.
func compareStreams(fa, fb io.Reader) (dumpDiff, error) {
	ra, rb := bufio.NewReaderSize(fa, 1<<20), bufio.NewReaderSize(fb, 1<<20)
	d := dumpDiff{Equal: true}
	for n := 1; ; n++ {
		la, ea := ra.ReadString('\n')
		lb, eb := rb.ReadString('\n')
		if la != "" {
			d.Lines++
		}
		if lb != "" {
			d.LinesB++
		}
		if la != lb {
			d.Difference++
			if d.Equal {
				d.Equal, d.Line, d.A, d.B = false, n, strings.TrimSuffix(la, "\n"), strings.TrimSuffix(lb, "\n")
			}
		}
		if ea != nil && eb != nil {
			if ea != io.EOF {
				return d, ea
			}
			if eb != io.EOF {
				return d, eb
			}
			return d, nil
		}
	}
}

func (d dumpDiff) String() string {
	if d.Equal {
		return fmt.Sprintf("equal, %d lines", d.Lines)
	}
	return fmt.Sprintf("DIFFER (%d and %d lines, %d differ in place); first at line %d:\n< %s\n> %s", d.Lines, d.LinesB, d.Difference, d.Line, clip(d.A), clip(d.B))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
