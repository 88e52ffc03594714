package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// piVersion is the pi package the differential test runs against, pinned
// so that a new pi release cannot change what passes (`npm view
// @mariozechner/pi-coding-agent version` gives the newest).
const piVersion = "0.73.1"

// pi itself is the reference (SPEC §3.2): for every pi session under
// testdata/pi, testdata/pi-edge, ../shared/corpus/pi and a generated
// corpus, pi's SessionManager, buildSessionContext and convertToLlm (run by
// node once per directory, over copies, since pi migrates v1 and v2 files
// in place) give the same leaves, active leaf, session name, and for every
// leaf the same path, context and model input as grove's index; and pi
// reads every grove fork (one per healthy leaf) with no line lost and the
// same context at its active leaf as the source leaf has. (modified is not
// compared: pi computes it in SessionManager.list.)
//
// Values are compared as JSON values (decoded as encoding/json decodes
// them), not as bytes: grove gives a message's bytes as stored, pi what
// JSON.stringify writes of what JSON.parse read, which differ in spelling
// only (12345678901234567890 against 12345678901234567000, "\ud83d"
// against the same escape; both decode to the same float64 and U+FFFD).
// One difference is tolerated and logged: `grove context` (without --llm)
// of a version 1 or 2 file gives a hookMessage as stored, where pi, having
// migrated the file, says role "custom" (SPEC §4.1: "its message as
// stored"); with --llm they agree.
//
// It skips when node or npm is missing or the package cannot be installed
// (no registry); the package is installed once into the user cache
// directory (grove-test/pi-<version>) and reused.
func TestPiDifferential(t *testing.T) {
	testutil.SkipSlow(t, "./archive", "runs pi under node over four sets of sessions")
	pkg := piPackage(t)
	for name, dir := range map[string]func(*testing.T) string{
		"pi":        func(t *testing.T) string { return testutil.Testdata(t, "pi") },
		"pi-edge":   func(t *testing.T) string { return testutil.Testdata(t, "pi-edge") },
		"corpus":    func(t *testing.T) string { return testutil.MustShared(t, "corpus/pi") }, // skips when absent
		"generated": func(t *testing.T) string { return mustGenerated(t) },
	} {
		t.Run(name, func(t *testing.T) { checkAgainstPi(t, pkg, dir(t)) })
	}
}

// piAnswer is one file's answers from testdata/pi-answers.mjs.
type piAnswer struct {
	File    string `json:"file"`
	Error   string `json:"error"`
	Version int    `json:"version"`
	Entries []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"entries"`
	Active string `json:"active"`
	Name   string `json:"name"`
	Leaves []struct {
		ID      string   `json:"id"`
		Path    []string `json:"path"`
		Context struct {
			Messages      json.RawMessage `json:"messages"`
			ThinkingLevel json.RawMessage `json:"thinkingLevel"`
			Model         json.RawMessage `json:"model"`
		} `json:"context"`
		LLM json.RawMessage `json:"llm"`
	} `json:"leaves"`
}

// piView is a context as pi's buildSessionContext shapes it, with
// convertToLlm's messages: what the differential test compares.
type piView struct {
	Messages      any `json:"messages"`
	ThinkingLevel any `json:"thinkingLevel"`
	Model         any `json:"model"`
	LLM           any `json:"llm"`
}

func checkAgainstPi(t *testing.T, pkg, dir string) {
	ctx := context.Background()
	a, leaves := mustIndexLeaves(t, dir)
	work := t.TempDir()

	// Copies of the sources (pi rewrites v1/v2 files it opens), and a grove
	// fork of every healthy pi leaf.
	type fork struct {
		file     string
		src      string // source session path
		leaf     string
		wantView piView // grove's context of the source leaf
	}
	copies := map[string]string{} // source path -> copy
	var files []string
	var forks []fork
	bySession := map[string][]archive.Leaf{}
	for _, l := range leaves {
		if l.Session.Dialect != "pi" {
			continue
		}
		src := l.Session.Path
		if _, ok := copies[src]; !ok {
			c := testutil.MustCopy(t, src, filepath.Join(work, "src", fmt.Sprint(len(copies))), filepath.Base(src))
			copies[src] = c
			files = append(files, c)
		}
		bySession[src] = append(bySession[src], l)
		if l.Depth == nil {
			continue // a broken path has no fork
		}
		p, path, labels, err := a.ExportPath(ctx, src, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := archive.ForkLines(p.Session, path, labels, fmt.Sprintf("fork-%d", len(forks)), time.Unix(1800000000, 0))
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(work, "forks", fmt.Sprint(len(forks)), "fork.jsonl")
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := archive.WriteFork(f, lines); err != nil {
			t.Fatalf("WriteFork(%s at %s): %v", filepath.Base(src), l.EntryID, err)
		}
		forks = append(forks, fork{file: f, src: src, leaf: l.EntryID, wantView: groveView(t, a, src, l.EntryID, l.Session.Version < 3)})
		files = append(files, f)
	}
	if len(copies) == 0 {
		t.Fatalf("no pi session under %s", dir)
	}
	answers := runPi(t, pkg, files)

	compared, tolerated := 0, 0
	for src, ls := range bySession {
		ans := answers[copies[src]]
		name := filepath.Base(src)
		// pi's ids are grove's, except in version 1, where pi makes random
		// ones: entries pair up by file order.
		s, err := archive.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Entries) != len(ans.Entries) {
			t.Errorf("%s: grove reads %d entries, pi %d", name, len(s.Entries), len(ans.Entries))
			continue
		}
		toGrove := map[string]string{}
		for i, e := range s.Entries {
			if ans.Entries[i].Type != e.Type || (ans.Version >= 2 && ans.Entries[i].ID != e.ID) {
				t.Errorf("%s: entry %d is %s %s in grove, %s %s in pi", name, i+1, e.Type, e.ID, ans.Entries[i].Type, ans.Entries[i].ID)
			}
			toGrove[ans.Entries[i].ID] = e.ID
		}
		var groveLeaves, piLeaves []string
		for _, l := range ls {
			groveLeaves = append(groveLeaves, l.EntryID)
		}
		for _, pl := range ans.Leaves {
			piLeaves = append(piLeaves, toGrove[pl.ID])
		}
		sort.Strings(groveLeaves)
		sort.Strings(piLeaves)
		if !reflect.DeepEqual(groveLeaves, piLeaves) {
			t.Errorf("%s: leaves %v in grove, %v in pi", name, groveLeaves, piLeaves)
		}
		if got := toGrove[ans.Active]; s.Header != nil && len(s.Entries) > 0 && got != archive.ActiveLeaf(s.Dialect, s.Entries) {
			t.Errorf("%s: active leaf %s in grove, %s in pi", name, archive.ActiveLeaf(s.Dialect, s.Entries), got)
		}
		if ls[0].Session.Name != ans.Name {
			t.Errorf("%s: session name %q in grove, %q in pi's getSessionName", name, ls[0].Session.Name, ans.Name)
		}
		for _, l := range ls {
			if l.Depth == nil {
				t.Logf("%s at %s: the path is broken in grove (an error), pi answers a partial path; not compared", name, l.EntryID)
				continue
			}
			var pl *piView
			var piPath []string
			for _, x := range ans.Leaves {
				if toGrove[x.ID] == l.EntryID {
					v := decodeView(t, x.Context.Messages, x.Context.ThinkingLevel, x.Context.Model, x.LLM)
					pl = &v
					for _, id := range x.Path {
						piPath = append(piPath, toGrove[id])
					}
				}
			}
			if pl == nil {
				continue // reported with the leaves
			}
			compared++
			p, err := a.Path(ctx, src, l.EntryID)
			if err != nil {
				t.Fatal(err)
			}
			var grovePath []string
			for _, e := range p.Entries {
				grovePath = append(grovePath, e.EntryID)
			}
			if !reflect.DeepEqual(grovePath, piPath) {
				t.Errorf("%s at %s: path %v in grove, %v in pi", name, l.EntryID, grovePath, piPath)
			}
			g := groveView(t, a, src, l.EntryID, l.Session.Version < 3)
			if raw := groveView(t, a, src, l.EntryID, false); !reflect.DeepEqual(raw.Messages, g.Messages) {
				tolerated++
			}
			diffView(t, fmt.Sprintf("%s at %s", name, l.EntryID), g, *pl)
		}
	}
	for _, f := range forks {
		ans := answers[f.file]
		name := fmt.Sprintf("fork of %s at %s", filepath.Base(f.src), f.leaf)
		lines := bytes.Count(mustRead(t, f.file), []byte("\n"))
		if len(ans.Entries) != lines-1 {
			t.Errorf("%s: pi reads %d entries of its %d lines after the header", name, len(ans.Entries), lines-1)
		}
		var got *piView
		for _, x := range ans.Leaves {
			if x.ID == ans.Active {
				v := decodeView(t, x.Context.Messages, x.Context.ThinkingLevel, x.Context.Model, x.LLM)
				got = &v
			}
		}
		if got == nil {
			t.Errorf("%s: pi gives no active leaf (%q)", name, ans.Active)
			continue
		}
		diffView(t, name, f.wantView, *got)
	}
	t.Logf("%s: %d sessions, %d leaves compared with pi (%d with a v1/v2 hookMessage given as stored), %d forks read back by pi",
		t.Name(), len(copies), compared, tolerated, len(forks))
}

// runPi runs testdata/pi-answers.mjs once over files and returns its
// answers by file.
func runPi(t *testing.T, pkg string, files []string) map[string]piAnswer {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "pi-answers.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script, pkg}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "PI_CODING_AGENT_DIR="+t.TempDir()) // pi touches nothing of the user's
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node pi-answers.mjs: %v\n%s", err, stderr.Bytes())
	}
	var doc struct {
		Files []piAnswer `json:"files"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("pi-answers.mjs output: %v", err)
	}
	byFile := map[string]piAnswer{}
	for _, f := range doc.Files {
		if f.Error != "" {
			t.Errorf("pi cannot read %s: %s", f.File, f.Error)
		}
		byFile[f.File] = f
	}
	return byFile
}

// groveView is grove's context of leaf in session (by the index, as `grove
// context` answers) in pi's shape; hookAsCustom gives a hookMessage role as
// "custom", as pi's migration of a version 1 or 2 file does.
func groveView(t *testing.T, a *archive.Archive, session, leaf string, hookAsCustom bool) piView {
	t.Helper()
	_, c, err := a.Context(context.Background(), session, leaf)
	if err != nil {
		t.Fatalf("Context(%s, %s): %v", session, leaf, err)
	}
	msgs, _ := json.Marshal(c.Messages)
	llm, _ := json.Marshal(c.ForLLM().Messages)
	model := json.RawMessage("null")
	if c.Model != nil {
		model, _ = json.Marshal(c.Model)
	}
	v := decodeView(t, msgs, c.ThinkingLevel, model, llm)
	if hookAsCustom {
		for _, m := range v.Messages.([]any) {
			if o, ok := m.(map[string]any); ok && o["role"] == "hookMessage" {
				o["role"] = "custom"
			}
		}
	}
	return v
}

func decodeView(t *testing.T, messages, thinking, model, llm json.RawMessage) piView {
	t.Helper()
	var v piView
	for _, f := range []struct {
		raw json.RawMessage
		to  *any
	}{{messages, &v.Messages}, {thinking, &v.ThinkingLevel}, {model, &v.Model}, {llm, &v.LLM}} {
		if len(f.raw) == 0 {
			f.raw = json.RawMessage("null") // JSON.stringify leaves out undefined
		}
		if err := json.Unmarshal(f.raw, f.to); err != nil {
			t.Fatalf("decode %s: %v", f.raw, err)
		}
	}
	return v
}

// diffView reports where grove's view of a context differs from pi's.
func diffView(t *testing.T, what string, grove, pi piView) {
	t.Helper()
	for _, f := range []struct {
		name  string
		g, pi any
	}{{"messages", grove.Messages, pi.Messages}, {"thinkingLevel", grove.ThinkingLevel, pi.ThinkingLevel},
		{"model", grove.Model, pi.Model}, {"convertToLlm", grove.LLM, pi.LLM}} {
		if !reflect.DeepEqual(f.g, f.pi) {
			g, _ := json.Marshal(f.g)
			p, _ := json.Marshal(f.pi)
			t.Errorf("%s: %s differ\ngrove: %s\npi:    %s", what, f.name, around(g, p), around(p, g))
		}
	}
}

// around is a's JSON text near the first byte where it differs from b.
func around(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from, to := max(0, i-120), min(len(a), i+120)
	return fmt.Sprintf("…%s… (byte %d)", a[from:to], i)
}

// piPackage is the directory of @mariozechner/pi-coding-agent piVersion,
// installed with npm into the user cache directory (reused when there).
// It skips the test when node or npm is missing or npm cannot install it.
func piPackage(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the differential test against pi: %s is not installed", tool)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "grove-test", "pi-"+piVersion)
	pkg := filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent")
	if _, err := os.Stat(filepath.Join(pkg, "dist", "index.js")); err == nil {
		return pkg
	}
	// Install beside it and rename into place, so that an interrupted
	// install is never taken for a finished one.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Skipf("skipping the differential test against pi: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Skipf("skipping the differential test against pi: %v", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", tmp,
		"@mariozechner/pi-coding-agent@"+piVersion).CombinedOutput()
	if err != nil {
		t.Skipf("skipping the differential test against pi: npm install @mariozechner/pi-coding-agent@%s failed (is the registry reachable?): %v\n%s",
			piVersion, err, lastLines(string(out), 4))
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(filepath.Join(pkg, "dist", "index.js")); serr != nil { // another test run may have won the race
			t.Fatalf("install pi into %s: %v", dir, err)
		}
	}
	return pkg
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
