package corpusgen

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// sharedOptions make the corpus most tests read: 20 MB with every feature
// at a high rate, so each kind of file occurs with this seed.
var sharedOptions = Options{Seed: 8, Size: 18_000_000, BigSession: 2_000_000, ChineseShare: 0.2,
	ImageRate: 0.04, DamageRate: 0.15, PlainShare: 0.2, ForkRate: 0.2}

var shared struct {
	once sync.Once
	dir  string
	m    *Manifest
	err  error
}

// mustShared returns the directory and manifest of the shared corpus,
// generated once per test binary.
func mustShared(tb testing.TB) (string, *Manifest) {
	tb.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "corpusgen-")
		if shared.err == nil {
			shared.m, shared.err = Generate(context.Background(), shared.dir, sharedOptions)
		}
	})
	if shared.err != nil {
		tb.Fatalf("generate the shared corpus: %v", shared.err)
	}
	return shared.dir, shared.m
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	if mixed.dir != "" {
		os.RemoveAll(mixed.dir)
	}
	os.Exit(code)
}

// mustLines returns the LF-separated segments of a file: the committed
// lines, then the tail (empty when the file ends in LF).
func mustLines(tb testing.TB, name string) [][]byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Split(b, []byte{'\n'})
}

func TestCorpus_HasEveryKindOfFile(t *testing.T) {
	_, m := mustShared(t)
	seen := map[string]int{}
	for _, f := range m.Files {
		seen["dialect "+f.Dialect]++
		seen["damage "+f.Damage]++
		if f.Forked {
			seen["fork"]++
		}
		if f.Images > 0 {
			seen["image"]++
		}
		if f.Big {
			seen["big"]++
		}
	}
	for _, k := range []string{"dialect pi", "dialect plain", "damage torn_tail", "damage bad_line",
		"damage missing_parent", "fork", "image", "big"} {
		if seen[k] == 0 {
			t.Errorf("no file with %s in the shared corpus (%v)", k, seen)
		}
	}
}

func TestCorpus_LinesAreJSON(t *testing.T) {
	dir, m := mustShared(t)
	for _, f := range m.Files {
		checkJSON(t, dir, f)
	}
}

// checkJSON: every committed line is JSON but the declared bad line, and
// only a torn_tail file has a tail.
func checkJSON(t *testing.T, dir string, f File) {
	t.Helper()
	lines := mustLines(t, filepath.Join(dir, f.Path))
	tail := lines[len(lines)-1]
	if (len(tail) > 0) != (f.Damage == DamageTornTail) {
		t.Errorf("%s (damage %q): tail of %d bytes", f.Path, f.Damage, len(tail))
	}
	for i, l := range lines[:len(lines)-1] {
		bad := f.Damage == DamageBadLine && i+1 == f.DamageLine
		if json.Valid(l) == bad {
			t.Errorf("%s:%d (damage %q at line %d): json.Valid = %v", f.Path, i+1, f.Damage, f.DamageLine, !bad)
		}
	}
}

var piName = regexp.MustCompile(`^pi/(--[^/]+--)/(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)_([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$`)

func TestCorpus_LayoutIsPis(t *testing.T) {
	dir, m := mustShared(t)
	for _, f := range m.Files {
		lines := mustLines(t, filepath.Join(dir, f.Path))
		if f.Dialect == "plain" {
			want := path.Join("plain", encodeCwd(f.Workspace), f.Session+".jsonl")
			if f.Path != want {
				t.Errorf("plain file %s, want %s", f.Path, want)
			}
			continue
		}
		sm := piName.FindStringSubmatch(f.Path)
		if sm == nil {
			t.Errorf("pi file %s does not match %s", f.Path, piName)
			continue
		}
		var h struct {
			Type, ID, Timestamp, Cwd, ParentSession string
			Version                                 int
		}
		if err := json.Unmarshal(lines[0], &h); err != nil {
			t.Fatalf("%s: header: %v", f.Path, err)
		}
		if h.Type != "session" || h.Version != 3 || h.ID != sm[3] || h.ID != f.Session || h.Cwd != f.Workspace {
			t.Errorf("%s: header %+v does not match the name or manifest %+v", f.Path, h, f)
		}
		if got := strings.NewReplacer(":", "-", ".", "-").Replace(h.Timestamp); got != sm[2] {
			t.Errorf("%s: header time %s gives %s, the name has %s", f.Path, h.Timestamp, got, sm[2])
		}
		if piDir(h.Cwd) != sm[1] {
			t.Errorf("%s: directory %s, want %s for cwd %q", f.Path, sm[1], piDir(h.Cwd), h.Cwd)
		}
		if h.ParentSession != f.Parent {
			t.Errorf("%s: parentSession %q, manifest parent %q", f.Path, h.ParentSession, f.Parent)
		}
	}
}

func TestPiDir(t *testing.T) {
	for _, c := range []struct{ cwd, want string }{
		{"/home/ana/src/shop", "--home-ana-src-shop--"},
		{`C:\Users\ana\src\shop`, "--C--Users-ana-src-shop--"},
		{"/Users/x/a:b", "--Users-x-a-b--"},
	} {
		if got := piDir(c.cwd); got != c.want {
			t.Errorf("piDir(%q) = %q, want %q", c.cwd, got, c.want)
		}
	}
}

// TestCorpus_ReaderAgrees reads every file with grove's own reader: the
// dialect, entry count and state match the manifest, and damage shows up
// exactly as declared.
func TestCorpus_ReaderAgrees(t *testing.T) {
	dir, m := mustShared(t)
	for _, f := range m.Files {
		checkReader(t, dir, f)
	}
}

func checkReader(t *testing.T, dir string, f File) {
	t.Helper()
	_, res, err := jsonl.ReadFile(filepath.Join(dir, f.Path), jsonl.Salvage)
	if err != nil {
		t.Fatalf("%s: %v", f.Path, err)
	}
	want := jsonl.StateOK
	switch f.Damage {
	case DamageTornTail:
		want = jsonl.StateNeedsRepair
	case DamageBadLine:
		want = jsonl.StateDamaged
	}
	committed := f.Lines // the reader counts committed lines, the manifest the tail too
	if f.Damage == DamageTornTail {
		committed--
	}
	if res.State() != want || string(res.Dialect) != f.Dialect || res.Entries != f.Entries || res.Lines != committed {
		t.Errorf("%s (damage %q): state %s dialect %s entries %d lines %d, want %s %s %d %d",
			f.Path, f.Damage, res.State(), res.Dialect, res.Entries, res.Lines, want, f.Dialect, f.Entries, committed)
	}
	if f.Damage == DamageBadLine && (len(res.Errors) != 1 || res.Errors[0].Line != f.DamageLine) {
		t.Errorf("%s: errors %v, want one bad line at %d", f.Path, res.Errors, f.DamageLine)
	}
	if f.Damage != DamageBadLine && len(res.Errors) > 0 {
		t.Errorf("%s (damage %q): errors %v", f.Path, f.Damage, res.Errors)
	}
	tails := 0
	for _, w := range res.Warnings {
		if w.Code != errs.CodeUnterminatedTail || w.Line != f.DamageLine {
			t.Errorf("%s (damage %q): warning %v", f.Path, f.Damage, w)
		}
		tails++
	}
	if (tails == 1) != (f.Damage == DamageTornTail) {
		t.Errorf("%s (damage %q): %d tail warnings", f.Path, f.Damage, tails)
	}
	fi, err := os.Stat(filepath.Join(dir, f.Path))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != f.Bytes {
		t.Errorf("%s: %d bytes on disk, manifest says %d", f.Path, fi.Size(), f.Bytes)
	}
}
