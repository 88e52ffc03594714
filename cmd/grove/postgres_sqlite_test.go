package main

import (
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/pgtest"
)

// A team's index answers as a machine's own (SPEC §10): two machines'
// worth of sessions, indexed with two --source names into one PostgreSQL database, answer from a directory
// that holds no session file exactly as a SQLite index of the same files
// does. Every fixture of the repository (the five dialects, the damaged
// cases, the quirks) is split between the two machines; every listing,
// every session's tree and verify, every leaf's path, messages, context and
// export, and a set of searches are compared byte for byte, the index's
// own name in search's "open" commands aside.
func TestPostgres_AnswersAsSQLite(t *testing.T) {
	url := pgtest.DB(t)
	dir := t.TempDir()
	fixtures := filepath.Join("..", "..", "testdata")
	machines := map[string][]string{
		"laptop-a": {"pi", "claude", "codex", "cases"},
		"laptop-b": {"plain", "messages", "pi-edge", "quirks"},
	}
	for m, subs := range machines {
		for _, sub := range subs {
			if err := os.CopyFS(filepath.Join(dir, m, sub), os.DirFS(filepath.Join(fixtures, sub))); err != nil {
				t.Fatal(err)
			}
		}
		// Both machines hold the sessions of listing_order.txtar, whose
		// times tie (and a file of Claude Code snapshots only), with ids
		// of their own on laptop-b (no fork copies of laptop-a's): listings
		// and hits that tie across the machines.
		ties := filepath.Join(dir, m, "ties")
		mustExtractScript(t, "listing_order", ties)
		if m == "laptop-b" {
			mustRewriteTree(t, ties, strings.NewReplacer(`"id":"`, `"id":"b-`, `"parentId":"`, `"parentId":"b-`))
		}
	}
	// The machines go into SQLite in one order and into PostgreSQL in the
	// other: an answer that follows the order files were indexed in (doc
	// numbers, row ids) differs.
	order := []string{"laptop-a", "laptop-b"}
	lite := filepath.Join(t.TempDir(), "index.db")
	for _, db := range []string{lite, url} {
		grove := groveOn(t, db)
		for _, m := range order {
			if code, _, stderr := grove("index", "--source", m, "--root", filepath.Join(dir, m)); code != 0 && code != 1 {
				t.Fatalf("index %s into %s: exit %d: %s", m, db, code, stderr)
			}
		}
		slices.Reverse(order)
	}
	want := answersOf(t, lite)
	// The second machine reads with no session file anywhere.
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Rename(dir+".away", dir) })
	got := answersOf(t, url)
	if len(want) < 200 {
		t.Fatalf("only %d answers compared; the fixtures should give hundreds", len(want))
	}
	t.Logf("%d answers compared", len(want))
	compareAnswers(t, "PostgreSQL without the files against SQLite with them", got, want)
}

// mustRewriteTree rewrites every file below dir with r.
func mustRewriteTree(tb testing.TB, dir string, r *strings.Replacer) {
	tb.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, []byte(r.Replace(string(b))), 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// answersOf is every answer the index at db gives of what it holds, by the
// command line that asked it.
func answersOf(t *testing.T, db string) map[string]string {
	t.Helper()
	grove := groveOn(t, db)
	out := map[string]string{}
	ask := func(args ...string) string {
		code, stdout, stderr := grove(args...)
		s := strings.ReplaceAll(stdout+stderr, shellQuote(db), "DB")
		out[strings.Join(args, " ")] = s + "\nexit " + string(rune('0'+code))
		return stdout
	}
	var sessions struct {
		Sessions []struct {
			ID, Path string
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(ask("--json", "sessions")), &sessions); err != nil {
		t.Fatal(err)
	}
	ask("sessions")
	ask("--json", "workspaces")
	ask("--json", "workspaces", "--dialect", "pi")
	ask("--json", "leaves")
	ask("leaves")
	ask("--json", "branches")
	for _, q := range []string{"the", "file", `"failing test"`, "fix*", "JWT OR health", "-the test", "文件", "列", "数据", "e4c1a7b2", "tie"} {
		ask("--json", "search", "--limit", "50", q)
		ask("search", "--limit", "50", "--role", "user", q)
	}
	ids := map[string]int{}
	for _, s := range sessions.Sessions {
		ids[s.ID]++
	}
	for _, s := range sessions.Sessions {
		// By id where it is unique: a messages log named by its path is
		// read from the file itself (docs/commands.md "grove messages"), which the
		// second machine does not have.
		name := s.ID
		if ids[s.ID] > 1 {
			name = s.Path
		}
		ask("--json", "tree", name)
		ask("tree", "--full", name)
		ask("--json", "verify", "--session", name)
		var leaves struct {
			Leaves []struct{ ID string } `json:"leaves"`
		}
		if err := json.Unmarshal([]byte(ask("--json", "leaves", "--session", name)), &leaves); err != nil {
			t.Fatal(err)
		}
		for _, l := range leaves.Leaves {
			ask("--json", "path", name, l.ID)
			ask("--json", "messages", name, l.ID)
			ask("--json", "context", name, l.ID)
			ask("export", name, l.ID)
		}
		ask("export", "--format", "html", name)
	}
	return out
}

// grove serve on a team's index from a machine with no session root of
// its own serves the index as it is, watching nothing, instead of
// refusing to start (docs/postgres.md).
func TestPostgres_ServeWithNoRoot(t *testing.T) {
	url := pgtest.DB(t)
	root := filepath.Join(t.TempDir(), "pi")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "pi"))); err != nil {
		t.Fatal(err)
	}
	groveOut(t, "--db", url, "index", "--source", "laptop", "--root", root)
	p := startGrove(t, "--db", url, "--json", "serve", "--addr", "127.0.0.1:0") // HOME has no agent's root
	var listening struct{ URL string }
	deadline := time.Now().Add(pgPatience)
	for listening.URL == "" {
		if !p.running() || time.Now().After(deadline) {
			t.Fatalf("grove serve with no root: exit %v\nstderr:\n%s", p.cmd.ProcessState, p.stderr)
		}
		json.Unmarshal([]byte(p.stdout.String()), &listening)
		time.Sleep(20 * time.Millisecond)
	}
	res, err := http.Get(listening.URL + "api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got struct {
		Sessions []struct{ Source string } `json:"sessions"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || len(got.Sessions) != 3 || got.Sessions[0].Source != "laptop" {
		t.Fatalf("/api/sessions: %d sessions (%v), want laptop's 3", len(got.Sessions), err)
	}
	if !strings.Contains(p.stderr.String(), "watching nothing") {
		t.Errorf("stderr does not say nothing is watched:\n%s", p.stderr)
	}
}

// Two sources that indexed the same directory have sessions with the same
// ids at the same paths: grove serve's links name the source too, and
// each opens its own session instead of a page of identical choices.
func TestPostgres_ServeSharedPaths(t *testing.T) {
	url := pgtest.DB(t)
	root := filepath.Join(t.TempDir(), "pi")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "pi"))); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"alpha", "beta"} {
		groveOut(t, "--db", url, "index", "--source", src, "--root", root)
	}
	p := startGrove(t, "--db", url, "--json", "serve", "--addr", "127.0.0.1:0")
	var listening struct{ URL string }
	for deadline := time.Now().Add(pgPatience); listening.URL == ""; time.Sleep(20 * time.Millisecond) {
		if !p.running() || time.Now().After(deadline) {
			t.Fatalf("grove serve: exit %v\nstderr:\n%s", p.cmd.ProcessState, p.stderr)
		}
		json.Unmarshal([]byte(p.stdout.String()), &listening)
	}
	get := func(u string) (int, string) {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	_, home := get(listening.URL)
	links := regexp.MustCompile(`href="(/s/[^"#]+)"`).FindAllStringSubmatch(home, -1)
	if len(links) != 6 {
		t.Fatalf("%d session links on /, want 3 sessions × 2 sources", len(links))
	}
	for _, l := range links {
		href := html.UnescapeString(l[1])
		if code, body := get(strings.TrimSuffix(listening.URL, "/") + href); code != 200 {
			t.Errorf("%s: status %d: %.300s", href, code, body)
		}
	}
}
