package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/urfave/cli/v2"
)

func newApp(stdout, stderr io.Writer) *cli.App {
	d := corpusgen.DefaultOptions()
	return &cli.App{
		Name:      "grove-bench",
		Usage:     "generate a corpus of sessions and measure grove beside rg, rg -i and a C SQLite baseline",
		UsageText: "go run ./cmd/grove-bench [--size 1GB] [--runs 3] [--json]",
		Writer:    stdout,
		ErrWriter: stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "size", Value: "1GB", Usage: "corpus size (10MB ... several GB)"},
			&cli.StringFlag{Name: "big-session", Value: "", Usage: "also write one pi session of this size (e.g. 500MB)"},
			&cli.Int64Flag{Name: "seed", Value: d.Seed, Usage: "corpus seed: same seed and size, same bytes"},
			&cli.Float64Flag{Name: "chinese", Value: d.ChineseShare, Usage: "share of conversation turns in Chinese"},
			&cli.StringFlag{Name: "work", Value: filepath.Join(os.TempDir(), "grove-bench"), Usage: "directory for the corpus, the indexes and the grove binary"},
			&cli.StringFlag{Name: "corpus", Usage: "corpus directory (default WORK/corpus-SIZE-seedN; reused when its manifest matches)"},
			&cli.IntFlag{Name: "runs", Value: 3, Usage: "runs of each whole-process figure (index, refresh, baseline, many-files, append refreshes; verify and the cold indexes of append and big-mem run once); grove search uses at least 10, rg at least 5, no-op refreshes at least 5"},
			&cli.IntFlag{Name: "search-runs", Value: 30, Usage: "runs of each in-process search and path figure"},
			&cli.StringFlag{Name: "grove", Usage: "measure this grove binary instead of building ./cmd/grove"},
			&cli.StringSliceFlag{Name: "only", Usage: "measure only these steps: " + strings.Join(stepNames(), ", ") + " (without index, the index of an earlier run in --work is used)"},
			&cli.IntFlag{Name: "refresh-files", Value: 10000, Usage: "files of 4-9 KB in the many-files corpus (cold index, no-op refresh, watch); 0 skips"},
			&cli.StringFlag{Name: "append-sizes", Value: "10MB,100MB", Usage: "sizes of the single sessions a 1 KB entry is appended to, comma-separated; empty skips"},
			&cli.StringFlag{Name: "long-line-size", Value: "50MB", Usage: "size of the base64 image line of the long-line step's session (its text line is half that); 0 skips"},
			&cli.StringFlag{Name: "big-mem-size", Value: "500MB", Usage: "size of the single session whose cold index's peak RSS is measured; 0 skips"},
			&cli.DurationFlag{Name: "watch-idle", Value: 10 * time.Second, Usage: "how long grove watch is sampled while nothing changes"},
			&cli.StringFlag{Name: "dialect-size", Value: "50MB", Usage: "size of each dialect's corpus in the dialects step (cold index and refresh per dialect); 0 skips"},
			&cli.StringFlag{Name: "dialects", Value: strings.Join(benchDialects, ","), Usage: "dialects the dialects step measures, comma-separated"},
			&cli.IntFlag{Name: "dialect-append-lines", Value: 10, Usage: "lines of 1 KB appended to one session before each refresh of the dialects step"},
			&cli.StringFlag{Name: "index-sizes", Usage: "sizes step: corpus sizes (seed --seed) at which the cold index and the C SQLite baseline are measured, runs alternated, comma-separated, e.g. 200MB,1GB; empty skips the step"},
			&cli.IntFlag{Name: "shape-entries", Value: 100000, Usage: "shapes step: entries of each generated comb, star and chain session that grove verify checks"},
			&cli.DurationFlag{Name: "verify-timeout", Value: 5 * time.Minute, Usage: "shapes step: a grove verify still running after this is killed and reported at the timeout"},
			&cli.StringFlag{Name: "export-size", Value: "60MB", Usage: "export step: size of the pi session exported as md, html and jsonl"},
			&cli.StringFlag{Name: "dump-grove", Usage: "dump step: the grove binary whose cold index is the reference (e.g. one built from main); default the grove measured"},
			&cli.StringSliceFlag{Name: "dump-omit", Usage: "dump step: columns left out of both dumps, as TABLE.COLUMN or *.COLUMN (one only the new schema has)"},
			&cli.StringFlag{Name: "serve-size", Value: defaultServeSize, Usage: "serve step: size of the generated pi session grove serve shows (142MB: 100,102 entries)"},
			&cli.IntFlag{Name: "serve-runs", Value: 5, Usage: "serve step: loads of each page in Chromium, runs of each search"},
			&cli.StringFlag{Name: "serve-corpus", Usage: "serve step: directory whose largest pi/ and claude/ sessions are shown too (default ../shared/corpus beside the repository; skipped when absent)"},
			&cli.StringFlag{Name: "chromium", Usage: "serve step: the Chromium binary (default chromium-headless-shell or chromium on PATH; the page figures are skipped without one)"},
			&cli.IntFlag{Name: "team-sources", Value: 20, Usage: "team step: sources (machines), each its own root of generated sessions"},
			&cli.IntFlag{Name: "team-sessions", Value: 500, Usage: "team step: sessions per source"},
			&cli.IntFlag{Name: "team-writers", Value: 4, Usage: "team step: grove index processes writing at once in the concurrent cold index"},
			&cli.StringFlag{Name: "team-session-size", Value: "8KB", Usage: "team step: the largest target size of a session (8KB: files of 4-9 KB)"},
			&cli.IntFlag{Name: "team-chain", Value: 10000, Usage: "team step: entries of the chain session whose deepest path is timed"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as one JSON document"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Commands: []*cli.Command{dumpCommand(stdout), {
			Name:  "goals",
			Usage: "print every goal a run checks (step, figure, bound, why) as a Markdown table",
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageError{fmt.Errorf("goals takes no arguments")}
				}
				return writeGoals(stdout)
			},
		}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError{fmt.Errorf("unexpected argument %q: grove-bench takes flags only (did you mean --size %s?)", c.Args().First(), c.Args().First())}
			}
			cfg, err := configOf(c)
			if err != nil {
				return usageError{err}
			}
			s := &suite{cfg: cfg, log: stderr}
			res, err := s.run(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(res)
			}
			return writeTable(stdout, res)
		},
	}
}

func configOf(c *cli.Context) (config, error) {
	o := corpusgen.DefaultOptions()
	size, err := corpusgen.ParseSize(c.String("size"))
	if err != nil {
		return config{}, fmt.Errorf("--size: %w", err)
	}
	o.Size, o.Seed, o.ChineseShare = size, c.Int64("seed"), c.Float64("chinese")
	if v := c.String("big-session"); v != "" {
		if o.BigSession, err = corpusgen.ParseSize(v); err != nil {
			return config{}, fmt.Errorf("--big-session: %w", err)
		}
	}
	if c.Int("runs") < 1 || c.Int("search-runs") < 1 {
		return config{}, fmt.Errorf("--runs and --search-runs must be 1 or more")
	}
	work, err := filepath.Abs(c.String("work"))
	if err != nil {
		return config{}, err
	}
	dir := c.String("corpus")
	if dir == "" {
		dir = filepath.Join(work, fmt.Sprintf("corpus-%s-big%d-seed%d", c.String("size"), o.BigSession, o.Seed))
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return config{}, err
	}
	var sizes []int64
	for _, v := range strings.Split(c.String("append-sizes"), ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		n, err := corpusgen.ParseSize(v)
		if err != nil || n < minSessionBytes {
			return config{}, fmt.Errorf("--append-sizes: %q is not a size of %d bytes or more (%v)", v, minSessionBytes, err)
		}
		sizes = append(sizes, n)
	}
	bigMem, err := corpusgen.ParseSize(c.String("big-mem-size"))
	if err != nil || (bigMem > 0 && bigMem < minSessionBytes) {
		return config{}, fmt.Errorf("--big-mem-size: %q is not 0 or a size of %d bytes or more (%v)", c.String("big-mem-size"), minSessionBytes, err)
	}
	longLine, err := corpusgen.ParseSize(c.String("long-line-size"))
	if err != nil || longLine < 0 {
		return config{}, fmt.Errorf("--long-line-size: %q is not 0 or a size (%v)", c.String("long-line-size"), err)
	}
	if c.Int("refresh-files") < 0 || c.Duration("watch-idle") <= 0 {
		return config{}, fmt.Errorf("--refresh-files must not be negative and --watch-idle must be above 0")
	}
	dialectSize, err := corpusgen.ParseSize(c.String("dialect-size"))
	if err != nil || (dialectSize > 0 && dialectSize < minSessionBytes) {
		return config{}, fmt.Errorf("--dialect-size: %q is not 0 or a size of %d bytes or more (%v)", c.String("dialect-size"), minSessionBytes, err)
	}
	var dialects []string
	for _, d := range strings.Split(c.String("dialects"), ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if !slices.Contains(benchDialects, d) || slices.Contains(dialects, d) {
			return config{}, fmt.Errorf("--dialects: %q is not one of %s, or is given twice", d, strings.Join(benchDialects, ", "))
		}
		dialects = append(dialects, d)
	}
	if c.Int("dialect-append-lines") < 1 {
		return config{}, fmt.Errorf("--dialect-append-lines must be 1 or more")
	}
	var indexSizes []int64
	for _, v := range strings.Split(c.String("index-sizes"), ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		n, err := corpusgen.ParseSize(v)
		if err != nil || n < minSessionBytes {
			return config{}, fmt.Errorf("--index-sizes: %q is not a size of %d bytes or more (%v)", v, minSessionBytes, err)
		}
		indexSizes = append(indexSizes, n)
	}
	exportSize, err := corpusgen.ParseSize(c.String("export-size"))
	if err != nil || exportSize < minSessionBytes {
		return config{}, fmt.Errorf("--export-size: %q is not a size of %d bytes or more (%v)", c.String("export-size"), minSessionBytes, err)
	}
	if c.Int("shape-entries") < 4 || c.Duration("verify-timeout") <= 0 {
		return config{}, fmt.Errorf("--shape-entries must be 4 or more and --verify-timeout above 0")
	}
	var dumpOmit []string
	for _, v := range c.StringSlice("dump-omit") {
		for _, col := range strings.Split(v, ",") {
			if t, k, ok := strings.Cut(strings.TrimSpace(col), "."); !ok || t == "" || k == "" {
				return config{}, fmt.Errorf("--dump-omit: %q is not TABLE.COLUMN or *.COLUMN", col)
			}
			dumpOmit = append(dumpOmit, strings.TrimSpace(col))
		}
	}
	serveSize, err := corpusgen.ParseSize(c.String("serve-size"))
	if err != nil || serveSize < minSessionBytes {
		return config{}, fmt.Errorf("--serve-size: %q is not a size of %d bytes or more (%v)", c.String("serve-size"), minSessionBytes, err)
	}
	if c.Int("serve-runs") < 1 {
		return config{}, fmt.Errorf("--serve-runs must be 1 or more")
	}
	teamMax, err := corpusgen.ParseSize(c.String("team-session-size"))
	if err != nil || teamMax < minSessionBytes {
		return config{}, fmt.Errorf("--team-session-size: %q is not a size of %d bytes or more (%v)", c.String("team-session-size"), minSessionBytes, err)
	}
	if c.Int("team-sources") < 1 || c.Int("team-sessions") < 1 || c.Int("team-writers") < 1 || c.Int("team-chain") < 1 {
		return config{}, fmt.Errorf("--team-sources, --team-sessions, --team-writers and --team-chain must be 1 or more")
	}
	only := map[string]bool{}
	for _, v := range c.StringSlice("only") {
		for _, name := range strings.Split(v, ",") {
			if !slices.Contains(stepNames(), name) {
				return config{}, fmt.Errorf("--only: no step %q (steps: %s)", name, strings.Join(stepNames(), ", "))
			}
			only[name] = true
		}
	}
	return config{Corpus: o, Dir: dir, ExplicitDir: c.String("corpus") != "", Work: work, Runs: c.Int("runs"), SearchRuns: c.Int("search-runs"), Grove: c.String("grove"), Only: only,
		RefreshFiles: c.Int("refresh-files"), AppendSizes: sizes, BigMem: bigMem, LongLine: longLine, WatchIdle: c.Duration("watch-idle"),
		DialectSize: dialectSize, Dialects: dialects, AppendLines: c.Int("dialect-append-lines"),
		IndexSizes: indexSizes, ShapeEntries: c.Int("shape-entries"), VerifyTimeout: c.Duration("verify-timeout"), ExportSize: exportSize,
		DumpGrove: c.String("dump-grove"), DumpOmit: dumpOmit,
		ServeSize: serveSize, ServeRuns: c.Int("serve-runs"), ServeCorpus: c.String("serve-corpus"), Chromium: c.String("chromium"),
		TeamSources: c.Int("team-sources"), TeamSessions: c.Int("team-sessions"), TeamWriters: c.Int("team-writers"), TeamSessionMax: teamMax, TeamChain: c.Int("team-chain")}, nil
}

// minSessionBytes is the smallest session corpusgen writes.
const minSessionBytes = 4 << 10

// usageError is a wrong command line: exit status 2, as grove's.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func (e usageError) Unwrap() error { return e.err }
