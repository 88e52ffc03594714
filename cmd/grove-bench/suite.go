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
	// Only names the steps to measure (step.Name); empty means all.
	// Without index, the index an earlier run left in Work is measured.
	Only map[string]bool
	// Corpora of their own: RefreshFiles small files (many-files, watch;
	// 0 skips), one session of each of AppendSizes (append), one of BigMem
	// bytes (big-mem; 0 skips).
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
	// The corpus sizes of the sizes step (none skips it), the entries of
	// each shapes session and how long one verify of it may run, the size
	// of the export step's session, the reference grove and the columns
	// left out of the dump step.
	IndexSizes    []int64
	ShapeEntries  int
	VerifyTimeout time.Duration
	ExportSize    int64
	DumpGrove     string
	DumpOmit      []string
	// The serve step: the generated session's size, loads of each
	// page and runs of each search, the shared corpus ("" is
	// ../shared/corpus beside the repository) and the Chromium binary
	// ("" looks on PATH).
	ServeSize   int64
	ServeRuns   int
	ServeCorpus string
	Chromium    string
	// The team step: TeamSources roots of TeamSessions sessions of
	// at most TeamSessionMax bytes, indexed by one writer and by
	// TeamWriters at once; the path figure's chain has TeamChain entries.
	TeamSources    int
	TeamSessions   int
	TeamWriters    int
	TeamSessionMax int64
	TeamChain      int
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

// Target is one goal (see goals) checked on this run's figures: the step
// it reads, the figure as measured, and whether it kept the bound.
type Target struct {
	Step   string  `json:"step"`
	What   string  `json:"what"`
	Goal   string  `json:"goal"`
	Why    string  `json:"why"`
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
	// dumps are the dump step's comparisons, in order.
	dumps []dumpComparison
}

func (s *suite) add(f Figure) Figure {
	s.res.Figures = append(s.res.Figures, f)
	s.byName[f.Section+"/"+f.Name] = f
	return f
}

func (s *suite) skip(section, name, why string) {
	s.add(Figure{Section: section, Name: name, Skipped: why})
}

// run measures the steps --only selects (all without it), in the order of
// steps, and checks the goals on what they measured.
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
	selected := func(name string) bool { return len(s.cfg.Only) == 0 || s.cfg.Only[name] }
	needCorpus, needIndex := false, false
	for _, st := range steps {
		if selected(st.Name) {
			needCorpus = needCorpus || st.Needs != ""
			needIndex = needIndex || st.Needs == "index"
		}
	}
	// What the steps need first: the grove measured, the main corpus, and
	// its index when the index step does not make it.
	setup := []struct {
		title string
		run   bool
		fn    func(*suite, context.Context) error
	}{
		{"build grove", true, (*suite).buildGrove},
		{"corpus", needCorpus, (*suite).corpus},
		{"existing index", needIndex && !selected("index"), (*suite).existingIndex},
	}
	for _, st := range setup {
		if err := s.runStep(ctx, st.title, st.run, st.fn); err != nil {
			return nil, err
		}
	}
	for _, st := range steps {
		if err := s.runStep(ctx, st.Title, selected(st.Name), st.Run); err != nil {
			return nil, err
		}
	}
	s.targets()
	return &s.res, nil
}

// runStep runs fn, when run is set, after logging its title.
func (s *suite) runStep(ctx context.Context, title string, run bool, fn func(*suite, context.Context) error) error {
	if err := ctx.Err(); err != nil || !run {
		return err
	}
	fmt.Fprintf(s.log, "== %s\n", title)
	if err := fn(s, ctx); err != nil {
		return fmt.Errorf("%s: %w", title, err)
	}
	return nil
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
	os.RemoveAll(filepath.Join(filepath.Dir(path), "kept")) // the kept store beside it (docs/keeping.md)
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

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version(),
		When: time.Now().UTC().Format(time.RFC3339)}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPU = cpuModel(string(b))
	}
	return m
}
