package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/corpusgen"
)

// config is what one run of the suite measures.
type config struct {
	Corpus corpusgen.Options
	Dir    string // corpus directory; reused when its manifest matches
	// ExplicitDir is set when Dir came from --corpus: it is never written
	// over, only reused or filled when empty.
	ExplicitDir bool
	Work        string // index files, the chain session, the grove binary
	Runs        int    // runs of each whole-process figure
	SearchRuns  int    // runs of each in-process search and path figure
	Grove       string // a grove binary to measure; "" builds ./cmd/grove
	// Only names the sections to measure (the names of sections); empty
	// means all. Without index, the index an earlier run left in Work is
	// measured.
	Only map[string]bool
	// The refresh issue's corpora of their own: RefreshFiles small files
	// (many-files, watch; 0 skips), one session of each of AppendSizes
	// (append), one of BigMem bytes (big-mem; 0 skips).
	RefreshFiles int
	AppendSizes  []int64
	BigMem       int64
	// LongLine is the base64 image line of the long-line step's session,
	// bytes (its text line is half that); 0 skips the step.
	LongLine  int64
	WatchIdle time.Duration // how long grove watch is sampled idle
	// The dialects step: a corpus of DialectSize bytes per dialect of
	// Dialects (0 skips), AppendLines lines appended per refresh.
	DialectSize int64
	Dialects    []string
	AppendLines int
	// Issue 16's steps: the corpus sizes of the sizes step (none skips
	// it), the entries of each shapes session and how long one verify of
	// it may run, the size of the export step's session, the reference
	// grove and the columns left out of the dump step.
	IndexSizes    []int64
	ShapeEntries  int
	VerifyTimeout time.Duration
	ExportSize    int64
	DumpGrove     string
	DumpOmit      []string
	// Issue 17's serve step: the generated session's size, loads of each
	// page and runs of each search, the shared corpus ("" is
	// ../shared/corpus beside the repository) and the Chromium binary
	// ("" looks on PATH).
	ServeSize   int64
	ServeRuns   int
	ServeCorpus string
	Chromium    string
	// Issue 18's team step: TeamSources roots of TeamSessions sessions of
	// at most TeamSessionMax bytes, indexed by one writer and by
	// TeamWriters at once; the path figure's chain has TeamChain entries.
	TeamSources    int
	TeamSessions   int
	TeamWriters    int
	TeamSessionMax int64
	TeamChain      int
}

// sections are the names --only accepts.
var sections = []string{"index", "refresh", "search", "path", "verify", "baseline", "many-files", "watch", "append", "big-mem", "long-line", "dialects", "sizes", "ready", "shapes", "export", "dump", "serve", "team"}

// queries is the fixed query set of the search figures (issue: search):
// grove's query and the literal text rg looks for.
var queries = []struct{ Name, Grove, Rg string }{
	{"common word", corpusgen.CommonWord, corpusgen.CommonWord},
	{"rare word", corpusgen.RareWord, corpusgen.RareWord},
	{"phrase", `"` + corpusgen.Phrase + `"`, corpusgen.Phrase},
	{"Chinese word", corpusgen.ChineseWord, corpusgen.ChineseWord},
	{"prefix", "serial*", "serial"},
}

// Result is everything one run measured (--json prints it).
type Result struct {
	Machine Machine            `json:"machine"`
	Corpus  CorpusInfo         `json:"corpus"`
	Figures []Figure           `json:"figures"`
	Targets []Target           `json:"targets"`
	Ratios  map[string]float64 `json:"ratios"`
}

// Machine describes where the figures were taken.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPU       string `json:"cpu"`
	OS        string `json:"os"`
	GoVersion string `json:"go"`
	When      string `json:"when"`
}

// CorpusInfo describes the corpus measured.
type CorpusInfo struct {
	Dir      string  `json:"dir"`
	Bytes    int64   `json:"bytes"`
	Files    int     `json:"files"`
	Entries  int64   `json:"entries"`
	Options  any     `json:"options"`
	GenSecs  float64 `json:"generate_seconds,omitempty"`
	Reused   bool    `json:"reused"`
	IndexMB  float64 `json:"index_mb"`
	Markers  any     `json:"markers"`
	BigFile  string  `json:"largest_session"`
	BigBytes int64   `json:"largest_session_bytes"`
}

// Target is one goal an issue sets and whether this run met it.
type Target struct {
	Issue  string  `json:"issue"`
	What   string  `json:"what"`
	Goal   string  `json:"goal"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Met    bool    `json:"met"`
	Missed string  `json:"missed_by,omitempty"`
	// NotMeasured says why the run could not check the goal (Met is then
	// false and Value zero).
	NotMeasured string `json:"not_measured,omitempty"`
}

type suite struct {
	cfg    config
	log    io.Writer
	grove  string
	db     string
	m      *corpusgen.Manifest
	res    Result
	byName map[string]Figure
	// watchExit is grove watch's exit status after SIGINT, when measured.
	watchExit *int
	// longLineGoals are the long-line step's memory goals, MB, by figure
	// name (empty until run): each session's own 3× its longest line + 40.
	longLineGoals map[string]float64
}

func (s *suite) add(f Figure) Figure {
	s.res.Figures = append(s.res.Figures, f)
	s.byName[f.Section+"/"+f.Name] = f
	return f
}

func (s *suite) skip(section, name, why string) {
	s.add(Figure{Section: section, Name: name, Skipped: why})
}

// run measures everything, in an order where each step leaves the files as
// the next one needs them.
func (s *suite) run(ctx context.Context) (*Result, error) {
	s.byName = map[string]Figure{}
	s.res.Ratios = map[string]float64{}
	s.res.Machine = machine()
	release, err := claimWork(s.cfg.Work)
	if err != nil {
		return nil, err
	}
	defer release()
	s.db = filepath.Join(s.cfg.Work, "index.db")
	// needs says what a step uses: "corpus" the main corpus, "index" its
	// index too (made by cold index, or left by an earlier run).
	steps := []struct {
		name, section, needs string
		fn                   func(context.Context) error
	}{
		{"build grove", "", "", s.buildGrove},
		{"corpus", "", "", s.corpus},
		{"cold index", "index", "corpus", s.coldIndex},
		{"existing index", "", "", s.existingIndex},
		{"no-op refresh", "refresh", "index", s.noopRefresh},
		{"search in-process", "search", "index", s.searchInProcess},
		{"search whole-process", "search", "index", s.searchProcess},
		{"path", "path", "", s.paths},
		{"verify", "verify", "index", s.verify},
		{"refresh after append", "refresh", "index", s.appendRefresh},
		{"C SQLite baseline", "baseline", "corpus", s.baseline},
		{"many files: cold index and no-op refresh", "many-files", "", s.manyFiles},
		{"grove watch idle", "watch", "", s.watchIdle},
		{"refresh after an append to one session", "append", "", s.appendSessions},
		{"big-session memory", "big-mem", "", s.bigSession},
		{"long-line memory", "long-line", "", s.longLine},
		{"dialects: cold index and refresh per dialect", "dialects", "", s.dialects},
		{"sizes: cold index and baseline at each size", "sizes", "", s.indexSizes},
		{"structure ready during a cold index", "ready", "corpus", s.structureReady},
		{"shapes: verify on a comb, a star and a chain", "shapes", "", s.shapesStep},
		{"export of one large session", "export", "", s.exportStep},
		{"dump: indexes built two ways compared", "dump", "corpus", s.dumpStep},
		{"serve: pages in Chromium, memory and search of grove serve", "serve", "", s.serveStep},
		{"team: SQLite and PostgreSQL side by side", "team", "", s.teamStep},
	}
	selected := func(section string) bool {
		return section != "" && (len(s.cfg.Only) == 0 || s.cfg.Only[section])
	}
	needCorpus, needIndex := false, false
	for _, st := range steps {
		if selected(st.section) {
			needCorpus = needCorpus || st.needs != ""
			needIndex = needIndex || st.needs == "index"
		}
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch st.name {
		case "build grove":
		case "corpus":
			if !needCorpus {
				continue
			}
		case "existing index":
			if !needIndex || selected("index") {
				continue
			}
		default:
			if !selected(st.section) {
				continue
			}
		}
		fmt.Fprintf(s.log, "== %s\n", st.name)
		if err := st.fn(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", st.name, err)
		}
	}
	s.targets()
	return &s.res, nil
}

func (s *suite) buildGrove(ctx context.Context) error {
	if s.cfg.Grove != "" {
		s.grove = s.cfg.Grove
		return nil
	}
	s.grove = filepath.Join(s.cfg.Work, "grove")
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", s.grove, "./cmd/grove")
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, s.log, s.log
	return cmd.Run()
}

// moduleRoot finds the directory of grove's go.mod from the working
// directory upwards.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "cmd", "grove")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run grove-bench inside the grove repository (no go.mod with cmd/grove above %s), or pass --grove", dir)
		}
		dir = parent
	}
}

func (s *suite) corpus(ctx context.Context) error {
	start := time.Now()
	_, statErr := os.Stat(filepath.Join(s.cfg.Dir, "manifest.json"))
	if err := checkSpace(s.cfg.Work, s.cfg.Corpus.Size+s.cfg.Corpus.BigSession, statErr == nil, "--size"); err != nil {
		return err
	}
	m, err := ensureCorpus(ctx, s.cfg.Dir, s.cfg.Corpus, s.cfg.ExplicitDir, s.log)
	if err != nil {
		return err
	}
	s.m = m
	ci := CorpusInfo{Dir: s.cfg.Dir, Bytes: m.Bytes, Files: len(m.Files), Entries: m.Entries, Options: m.Options, Markers: m.Markers}
	if gen := time.Since(start); statErr != nil || gen > 2*time.Second {
		ci.GenSecs = gen.Seconds()
	} else {
		ci.Reused = true
	}
	for _, f := range m.Files {
		if f.Dialect == "pi" && f.Damage == "" && f.Bytes > ci.BigBytes {
			ci.BigFile, ci.BigBytes = f.Path, f.Bytes
		}
	}
	s.res.Corpus = ci
	return nil
}

// existingIndex checks, when --only leaves out the cold index, that an
// earlier run left an index of this corpus in the work directory.
func (s *suite) existingIndex(ctx context.Context) error {
	if _, err := os.Stat(s.db); err != nil {
		return fmt.Errorf("--only without index needs the index an earlier run left in %s: run once without --only", s.cfg.Work)
	}
	r, err := runProc(ctx, nil, s.grove, s.groveArgs("index", "--root", s.cfg.Dir))
	if err != nil {
		return err
	}
	var sum struct{ Indexed, Files int }
	if err := json.Unmarshal(r.Stdout, &sum); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "   reusing %s (%d of %d files re-indexed)\n", s.db, sum.Indexed, sum.Files)
	size := fileSize(s.db, s.db+"-wal")
	s.res.Corpus.IndexMB = float64(size) / 1e6
	s.res.Ratios["index_size_over_jsonl"] = float64(size) / float64(s.m.Bytes)
	return nil
}

func (s *suite) groveArgs(args ...string) []string {
	return append([]string{"--db", s.db, "--json"}, args...)
}

// removeDB removes the index file path and what grove keeps beside it
// (a remembered .sources left behind would be read into the next index).
func removeDB(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", ".lock", ".sources"} {
		os.Remove(path + suffix)
	}
}

func fileSize(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// coldIndex indexes the whole corpus into an empty index, Runs times. The
// files are in the page cache after the first read (as they are for rg).
func (s *suite) coldIndex(ctx context.Context) error {
	var secs, mbps, eps, peak []float64
	var entries float64
	for i := 0; i < s.cfg.Runs; i++ {
		removeDB(s.db)
		r, err := runProc(ctx, nil, s.grove, s.groveArgs("index", "--root", s.cfg.Dir))
		if err != nil {
			return err
		}
		var sum struct{ Entries int64 }
		if err := json.Unmarshal(r.Stdout, &sum); err != nil {
			return fmt.Errorf("grove index output: %w", err)
		}
		entries = float64(sum.Entries)
		secs = append(secs, seconds(r.Wall))
		mbps = append(mbps, float64(s.m.Bytes)/1e6/r.Wall.Seconds())
		eps = append(eps, entries/r.Wall.Seconds())
		peak = append(peak, float64(r.PeakKB)/1024)
		fmt.Fprintf(s.log, "   run %d: %.2f s, %.1f MB/s\n", i+1, r.Wall.Seconds(), mbps[len(mbps)-1])
	}
	s.add(figureOf("index", "cold index: wall time", "s", secs))
	f := figureOf("index", "cold index: throughput", "MB/s", mbps)
	f.Note = fmt.Sprintf("%s of JSONL", mb(s.m.Bytes))
	s.add(f)
	s.add(figureOf("index", "cold index: entries", "entries/s", eps))
	s.add(figureOf("index", "cold index: peak RSS", "MB", peak))
	size := fileSize(s.db, s.db+"-wal")
	s.res.Corpus.IndexMB = float64(size) / 1e6
	ratio := float64(size) / float64(s.m.Bytes)
	s.res.Ratios["index_size_over_jsonl"] = ratio
	s.add(Figure{Section: "index", Name: "index size ÷ JSONL size", Median: ratio, Min: ratio, Max: ratio, Unit: "×", Runs: 1,
		Note: fmt.Sprintf("%s index for %s JSONL", mb(size), mb(s.m.Bytes))})
	return nil
}

func (s *suite) noopRefresh(ctx context.Context) error {
	var secs, peak []float64
	for i := 0; i < max(s.cfg.Runs, 5); i++ {
		r, err := runProc(ctx, nil, s.grove, s.groveArgs("index", "--root", s.cfg.Dir))
		if err != nil {
			return err
		}
		secs = append(secs, ms(r.Wall))
		peak = append(peak, float64(r.PeakKB)/1024)
	}
	f := figureOf("refresh", "no-op refresh (nothing changed)", "ms", secs)
	f.Note = fmt.Sprintf("%d files", len(s.m.Files))
	s.add(f)
	s.add(figureOf("refresh", "no-op refresh: peak RSS", "MB", peak))
	return nil
}

// searchInProcess opens the index once and runs each query SearchRuns
// times after one warm-up: the latency a long-lived caller sees.
func (s *suite) searchInProcess(ctx context.Context) error {
	a, err := archive.Open(ctx, s.db)
	if err != nil {
		return err
	}
	defer a.Close()
	var all []float64
	for _, q := range queries {
		o := archive.SearchOptions{Query: q.Grove, Limit: 20}
		res, err := a.Search(ctx, o)
		if err != nil {
			return fmt.Errorf("search %s: %w", q.Grove, err)
		}
		var lat []float64
		for i := 0; i < s.cfg.SearchRuns; i++ {
			start := time.Now()
			if _, err := a.Search(ctx, o); err != nil {
				return err
			}
			lat = append(lat, ms(time.Since(start)))
		}
		all = append(all, lat...)
		f := figureOf("search in-process", q.Name+": "+q.Grove, "ms", lat)
		f.Note = hitsNote(res)
		s.add(f)
	}
	s.add(figureOf("search in-process", "all queries", "ms", all))
	return nil
}

func hitsNote(res *archive.SearchResult) string {
	more := ""
	if !res.Exact {
		more = "+"
	}
	return fmt.Sprintf("%d%s hits", res.Total, more)
}

// searchProcess runs `grove search` as a new process per query, and rg and
// rg -i over the same files, warm cache, in the same run.
func (s *suite) searchProcess(ctx context.Context) error {
	rg, rgErr := exec.LookPath("rg")
	runs := max(s.cfg.Runs, 5)
	for _, q := range queries {
		var lat, peak []float64
		for i := 0; i < max(runs, 10)+1; i++ { // the first run warms the cache; 10 runs give a p99
			r, err := runProc(ctx, nil, s.grove, s.groveArgs("search", "--limit", "20", "--", q.Grove))
			if err != nil {
				return err
			}
			if i > 0 {
				lat = append(lat, ms(r.Wall))
				peak = append(peak, float64(r.PeakKB)/1024)
			}
		}
		g := s.add(figureOf("search whole-process", "grove search "+q.Grove, "ms", lat))
		pk := figureOf("search whole-process", "grove search "+q.Grove+": peak RSS", "MB", peak)
		s.add(pk)
		for _, mode := range []struct{ name, flag string }{{"rg", ""}, {"rg -i", "-i"}} {
			name := mode.name + " " + q.Rg
			if rgErr != nil {
				s.skip("search whole-process", name, "rg is not installed (Debian/Ubuntu: apt-get install ripgrep)")
				continue
			}
			var rlat []float64
			for i := 0; i < runs+1; i++ {
				args := []string{"-F", "-c", "--no-messages"}
				if mode.flag != "" {
					args = append(args, mode.flag)
				}
				r, err := runProc(ctx, nil, rg, append(args, "--", q.Rg, s.cfg.Dir), 1)
				if err != nil {
					return err
				}
				if i > 0 {
					rlat = append(rlat, ms(r.Wall))
				}
			}
			f := figureOf("search whole-process", name, "ms", rlat)
			ratio := f.Median / g.Median
			f.Note = fmt.Sprintf("grove search is %.1f× faster", ratio)
			if ratio < 1 {
				f.Note = fmt.Sprintf("%s is %.1f× faster than grove search", mode.name, 1/ratio)
			}
			s.res.Ratios["rg_over_grove/"+mode.name+"/"+q.Name] = ratio
			s.add(f)
		}
	}
	return nil
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version(),
		When: time.Now().UTC().Format(time.RFC3339)}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPU = cpuModel(string(b))
	}
	return m
}
