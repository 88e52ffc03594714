package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/testutil"
)

// Sessions a user indexed by naming their files (`grove index FILE...`),
// not below any root, with the default index and roots of a home of
// their own:
//   - one file deleted, a plain `grove index` (the default roots) marks
//     it gone, and it answers from its kept bytes (it answered stale_index
//     with a hint to run the very command that did not help);
//   - the index deleted, `grove index` then `grove rebuild` bring back all
//     three (the named files are remembered beside the index), and the
//     gone messages log keeps its file's time (it showed 1970-01-01).
func TestIndex_NamedFilesOutliveTheirFiles(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".pi", "agent", "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_DATA_HOME=", "GROVE_DB=", "GROVE_ROOT="}
	logs := filepath.Join(t.TempDir(), "logs")
	var files []string
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		f := testutil.MustCopy(t, testutil.Testdata(t, "messages/session.jsonl"), logs, name)
		files = append(files, f)
	}
	when := time.Date(2025, 5, 5, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(files[0], when, when); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := keptRun(t, env, args...)
		if code != 0 {
			t.Fatalf("grove %s = %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	run(append([]string{"index"}, files...)...)
	// listed is each session's state and modified time, by path.
	listed := func() map[string]string {
		var list struct {
			Sessions []struct{ Path, State, Modified string }
		}
		if err := json.Unmarshal([]byte(run("--json", "sessions", "--all")), &list); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, s := range list.Sessions {
			out[s.Path] = s.State + " " + s.Modified
		}
		return out
	}
	first := map[string]string{}
	for p, s := range listed() {
		first[p], _, _ = strings.Cut(s, " ")
	}
	want := run("messages", files[0])
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	if out := run("index"); !strings.Contains(out, "1 gone") {
		t.Errorf("grove index after a named file was deleted: %q, want 1 gone", out)
	}
	if got := run("messages", files[0]); got != want {
		t.Errorf("the gone session's messages:\n%s\nwant, as before:\n%s", got, want)
	}
	if err := os.Remove(filepath.Join(home, ".local", "share", "grove", "index.db")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"index", "rebuild"} {
		run(cmd)
		got := listed()
		for i, f := range files {
			want := first[f] + " " // as it was: this log is damaged on purpose
			if i == 0 {
				want = "gone " + when.Format("2006-01-02T15:04:05.000Z")
			}
			if !strings.HasPrefix(got[f], want) {
				t.Errorf("after the index was deleted, then grove %s: %s is %q, want %q…", cmd, f, got[f], want)
			}
		}
	}

	// A named file rewritten shorter, and the deleted one back at its
	// path: a plain grove index reads both (the earlier version kept, with
	// its file's time), and the one that came back is no longer gone.
	b, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(files[1], []byte(strings.Join(lines[:2], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	then := time.Date(2025, 6, 6, 6, 0, 0, 0, time.UTC)
	os.Chtimes(files[1], then, then)
	testutil.MustCopy(t, testutil.Testdata(t, "messages/session.jsonl"), logs, "a.jsonl")
	run("index")
	got := listed()
	if !strings.HasPrefix(got[files[0]], first[files[0]]+" ") {
		t.Errorf("the file that came back is %q, want %s again", got[files[0]], first[files[0]])
	}
	if st, _, _ := strings.Cut(got[files[1]], " "); st == "" || strings.Contains(got[files[1]], "1970") {
		t.Errorf("the rewritten file is %q", got[files[1]])
	}
	if v1 := got[files[1]+"@v1"]; !strings.HasPrefix(v1, "earlier ") || strings.Contains(v1, "1970") {
		t.Errorf("the rewritten file's earlier version is %q, want earlier with its file's time", v1)
	}
}
