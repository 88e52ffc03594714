package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pi leaf other than the active one is resumed in a fork of its path
// (SPEC §12, §5), written into pi's sessions folder for the workspace as
// pi names its files: every line after the header is the line grove
// export --format jsonl gives for that leaf, byte for byte, and the header
// names the source and the workspace. Version 3 (labels, compactions) and
// version 1 (migrated) sources, every non-active leaf of each.
func TestResume_PiForkIsExport(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "work space") // a space: the printed line must quote it
	agentDir := filepath.Join(tmp, "agent")
	roots := filepath.Join(tmp, "roots")
	for _, d := range []string{ws, roots} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PI_CODING_AGENT_DIR", agentDir)
	for _, src := range []struct{ file, cwd string }{
		{"v3-tree.jsonl", "/workspace/demo-app"},
		{"v1-linear.jsonl", "/home/dev/projects/v1-demo"},
		{"v2-branches.jsonl", "/home/dev/projects/api-server"},
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pi", src.file))
		if err != nil {
			t.Fatal(err)
		}
		cwd, _ := json.Marshal(ws)
		data = bytes.Replace(data, []byte(`"cwd":"`+src.cwd+`"`), []byte(`"cwd":`+string(cwd)), 1)
		if err := os.WriteFile(filepath.Join(roots, src.file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(tmp, "index.db")
	if _, err := runGrove(t, db, "index", "--root", roots); err != nil {
		t.Fatal(err)
	}
	out, err := runGrove(t, db, "--json", "leaves")
	if err != nil {
		t.Fatal(err)
	}
	var leaves struct {
		Leaves []struct {
			Session, ID string
			Active      bool
		}
	}
	if err := json.Unmarshal([]byte(out), &leaves); err != nil {
		t.Fatal(err)
	}
	forkDir := filepath.Join(agentDir, "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(ws, "/"), "/", "-")+"--")
	forks := 0
	for _, l := range leaves.Leaves {
		if l.Active {
			continue
		}
		forks++
		want, err := runGrove(t, db, "export", "--format", "jsonl", l.Session, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		out, err := runGrove(t, db, "--json", "resume", l.Session, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Agent, Cwd, Fork string
			Argv             []string
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Agent != "pi" || r.Cwd != ws || len(r.Argv) != 3 || r.Argv[0] != "pi" || r.Argv[1] != "--session" || r.Argv[2] != r.Fork {
			t.Fatalf("resume %s %s = %s, want pi --session FORK in %s", l.Session, l.ID, out, ws)
		}
		if filepath.Dir(r.Fork) != forkDir || !strings.HasSuffix(r.Fork, ".jsonl") {
			t.Errorf("fork %s, want a file in pi's folder %s", r.Fork, forkDir)
		}
		got, err := os.ReadFile(r.Fork)
		if err != nil {
			t.Fatal(err)
		}
		gotHead, gotRest, _ := strings.Cut(string(got), "\n")
		wantHead, wantRest, _ := strings.Cut(want, "\n")
		if !sameForkLines(gotRest, wantRest) {
			t.Errorf("fork of %s at %s: the lines after the header differ from grove export --format jsonl\n got: %q\nwant: %q", l.Session, l.ID, gotRest, wantRest)
		}
		var gh, wh map[string]any
		if err := json.Unmarshal([]byte(gotHead), &gh); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(wantHead), &wh); err != nil {
			t.Fatal(err)
		}
		if gh["cwd"] != ws || gh["parentSession"] != wh["parentSession"] || gh["version"] != wh["version"] || gh["type"] != "session" {
			t.Errorf("fork header %s, want cwd %s and the parentSession of %s", gotHead, ws, wantHead)
		}
		if base := filepath.Base(r.Fork); !strings.HasSuffix(base, "_"+gh["id"].(string)+".jsonl") {
			t.Errorf("fork file %s is not named <time>_<id>.jsonl for id %v", base, gh["id"])
		}
		// The text answer: the same command, the workspace quoted.
		line, err := runGrove(t, db, "resume", l.Session, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(line, "cd '"+ws+"' && pi --session '"+forkDir+"/") {
			t.Errorf("resume %s %s printed %q", l.Session, l.ID, line)
		}
	}
	if forks < 4 {
		t.Fatalf("%d non-active leaves forked, want at least 4: %s", forks, out)
	}
	// Each leaf was resumed twice (--json, then the line): the second went
	// on in the first's fork, labels and all, so one fork a leaf.
	if ents, err := os.ReadDir(forkDir); err != nil || len(ents) != forks {
		t.Errorf("%d forks in %s after resuming %d leaves twice each, want one a leaf (%v)", len(ents), forkDir, forks, err)
	}
}

// sameForkLines reports whether two forks of one path hold the same
// lines: byte for byte, but for the label entries a fork appends after
// the path (pi's createBranchedSession), which get a fresh id, parent and
// time in each fork and must otherwise be equal.
func sameForkLines(got, want string) bool {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		var gl, wl map[string]any
		if json.Unmarshal([]byte(g[i]), &gl) != nil || json.Unmarshal([]byte(w[i]), &wl) != nil || gl["type"] != "label" {
			return false
		}
		for _, k := range []string{"id", "parentId", "timestamp"} {
			delete(gl, k)
			delete(wl, k)
		}
		gb, _ := json.Marshal(gl)
		wb, _ := json.Marshal(wl)
		if !bytes.Equal(gb, wb) {
			return false
		}
	}
	return true
}
