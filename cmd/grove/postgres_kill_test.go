package main

import (
	"encoding/json"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"

	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// A killed PostgreSQL writer, grove watch into PostgreSQL, and the errors a
// user meets.

func checkStoredBytes(tb testing.TB, db *sqlx.DB) {
	tb.Helper()
	var rows []struct {
		Source, Path string
		Committed    int64 `db:"committed_len"`
	}
	if err := db.Select(&rows, "SELECT source, path, committed_len FROM sessions ORDER BY source, path"); err != nil {
		tb.Fatal(err)
	}
	for _, s := range rows {
		var pieces []struct {
			Offset int64 `db:"offset"`
			Len    int64 `db:"len"`
		}
		if err := db.Select(&pieces, `SELECT "offset", length(data) AS len FROM file_bytes WHERE source = $1 AND path = $2 ORDER BY "offset"`, s.Source, s.Path); err != nil {
			tb.Fatal(err)
		}
		at := int64(0)
		for _, p := range pieces {
			if p.Offset != at {
				tb.Errorf("%s %s: a stored piece starts at %d, the one before ends at %d", s.Source, s.Path, p.Offset, at)
			}
			at = p.Offset + p.Len
		}
		if at != s.Committed {
			tb.Errorf("%s %s: stored bytes end at %d, committed_len is %d", s.Source, s.Path, at, s.Committed)
		}
	}
	var orphans int
	if err := db.Get(&orphans, "SELECT count(*) FROM file_bytes b WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.source = b.source AND s.path = b.path)"); err != nil {
		tb.Fatal(err)
	}
	if orphans > 0 {
		tb.Errorf("%d stored pieces belong to no session", orphans)
	}
	if len(rows) == 0 {
		tb.Log("no session was committed before the kill")
	}
}

// TestPostgres_KilledWriter SIGKILLs a `grove index` mid-run, with a
// transaction open after some batches committed: the database is
// consistent (stored bytes end at committed_len, verify clean), the
// source's lock went with the process (a new writer does not wait), and
// a new run completes and answers as a clean index does.
func TestPostgres_KilledWriter(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "indexes 24 MB into PostgreSQL three times")
	root := pgCorpus(t, 11, 24_000_000, 0)
	url, clean := pgtest.DB(t), pgtest.DB(t)
	db := pgtest.Open(t, url)
	p := startGrove(t, "--db", url, "--json", "index", "--source", "laptop", "--root", root)
	// Kill it inside a writing transaction, after a batch has committed.
	var xid string
	for deadline := time.Now().Add(pgPatience); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := db.Get(&n, "SELECT count(*) FROM sessions"); err == nil && n > 0 {
			if xid = writerXact(t, db, p); xid != "" {
				break
			}
		}
		if !p.running() || time.Now().After(deadline) {
			t.Fatalf("grove index ended (or committed nothing) before the kill; make the corpus bigger\n%s", p.stderr)
		}
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)
	if ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() {
		t.Fatalf("grove index ended before the kill: %s", p.stdout)
	}
	var n int
	db.Get(&n, "SELECT count(*) FROM sessions")
	t.Logf("killed in transaction %s with %d of %d sessions committed", xid, n, countSessions(t, root))
	checkStoredBytes(t, db)
	if out := groveOut(t, "--db", url, "--json", "verify"); !strings.Contains(out, `"mismatches":0,`) {
		t.Errorf("grove verify after the kill:\n%s", out)
	}

	// The lock went with the process: the server notices the closed
	// socket at once when the backend waits for the client, else when
	// its statement ends.
	for deadline := time.Now().Add(30 * time.Second); holdsSourceLock(t, db); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed grove's source lock is still held after 30 s")
		}
	}
	again := startGrove(t, "--db", url, "--json", "index", "--source", "laptop", "--root", root)
	again.mustSucceed(t)
	if strings.Contains(again.stderr.String(), "another grove is writing") {
		t.Errorf("the run after the kill waited for a lock:\n%s", again.stderr)
	}
	checkStoredBytes(t, db)
	groveOut(t, "--db", clean, "index", "--source", "laptop", "--root", root)
	compareAnswers(t, "re-run after a kill vs a clean index", pgAnswers(t, url, pgQueries, 60), pgAnswers(t, clean, pgQueries, 60))
	if out := groveOut(t, "--db", url, "--json", "verify"); !strings.Contains(out, `"mismatches":0,`) {
		t.Errorf("grove verify after the re-run:\n%s", out)
	}
}

// TestPostgres_Watch runs `grove watch` into PostgreSQL: an entry
// appended to a session file becomes searchable from another process, and
// SIGINT ends the watch with status 0.
func TestPostgres_Watch(t *testing.T) {
	url := pgtest.DB(t)
	root := t.TempDir()
	file := filepath.Join(root, "a.jsonl")
	if err := os.WriteFile(file, []byte(piSession("pg-watch-a", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	w := startGrove(t, "--db", url, "watch", "--source", "desk", "--root", root, "--debounce", "100ms")
	search := func(q string) int {
		var doc struct{ Hits []json.RawMessage }
		if err := json.Unmarshal([]byte(groveOut(t, "--db", url, "--json", "search", q)), &doc); err != nil {
			t.Fatal(err)
		}
		return len(doc.Hits)
	}
	waitUntil := func(what string, ok func() bool) {
		for deadline := time.Now().Add(pgPatience); !ok(); time.Sleep(100 * time.Millisecond) {
			if !w.running() || time.Now().After(deadline) {
				t.Fatalf("waiting for %s (watch exited: %v)\nstdout:\n%s\nstderr:\n%s", what, !w.running(), w.stdout, w.stderr)
			}
		}
	}
	waitUntil("the first pass", func() bool { return watchPassLine.MatchString(w.stdout.String()) })
	if n := search("zanzibar"); n != 0 {
		t.Fatalf("zanzibar found before it was written: %d hits", n)
	}
	line := `{"type":"message","id":"m3","parentId":"m2","timestamp":"2026-03-03T08:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"a trip to zanzibar"}],"timestamp":1772524803000}}` + "\n"
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	waitUntil("the appended entry found by search", func() bool { return search("zanzibar") == 1 })
	// Read from another machine: the file is gone, the stored bytes answer.
	if err := os.Rename(root, root+".away"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(root+".away", root)
	out := groveOut(t, "--db", url, "--json", "messages", file, "m3")
	if !strings.Contains(out, "a trip to zanzibar") {
		t.Errorf("messages to the appended entry, read from the stored bytes: %s", out)
	}
	w.cmd.Process.Signal(os.Interrupt)
	if code := w.wait(t); code != 0 {
		t.Errorf("grove watch after SIGINT: exit %d\nstderr:\n%s", code, w.stderr)
	}
	if ws := w.cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
		t.Errorf("grove watch was ended by %v, not by an exit", ws.Signal())
	}
}

// groveErr runs grove ARGS... (with --json), which must fail, within
// limit, and returns its exit status and the error document.
func groveErr(tb testing.TB, limit time.Duration, args ...string) (code int, e struct{ Code, Message, Path, Hint string }, all string) {
	tb.Helper()
	p := startGrove(tb, args...)
	select {
	case <-p.exited:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-p.exited
		tb.Fatalf("grove %s still ran after %v (a hang)\nstderr:\n%s", strings.Join(args, " "), limit, p.stderr)
	}
	all = p.stdout.String() + p.stderr.String()
	var doc struct {
		Error struct{ Code, Message, Path, Hint string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(p.stdout.String()), &doc); err != nil {
		tb.Fatalf("grove %s: stdout is not one JSON error: %v\n%s", strings.Join(args, " "), err, all)
	}
	return p.cmd.ProcessState.ExitCode(), doc.Error, all
}

// TestPostgres_UserErrors: a server that is not there (a socket directory
// with no server, a TCP port nobody listens on) is an io_error naming the
// URL without its password, exit 1, at once; a database that holds
// another application's tables is refused with not_index and left as it
// was; a URL that is not one is said so.
func TestPostgres_UserErrors(t *testing.T) {
	url := pgtest.DB(t) // starts the cluster: the tests skip without PostgreSQL
	empty := t.TempDir()
	for _, bad := range []string{
		"postgres://ana:secret@/grove?host=" + empty,
		"postgres://ana@/grove?host=" + empty + "&password=secret",
		"postgresql://ana:secret@127.0.0.1:1/grove?connect_timeout=5",
	} {
		for _, cmd := range [][]string{{"index", "--root", empty}, {"sessions"}, {"search", "x"}} {
			start := time.Now()
			code, e, all := groveErr(t, 30*time.Second, append([]string{"--db", bad, "--json"}, cmd...)...)
			t.Logf("%s %s: %v", bad, cmd[0], time.Since(start).Round(time.Millisecond))
			if code != 1 || e.Code != "io_error" {
				t.Errorf("%s %s: exit %d, code %q, want 1 and io_error\n%s", bad, cmd[0], code, e.Code, all)
			}
			if strings.Contains(all, "secret") {
				t.Errorf("%s %s: the password is printed:\n%s", bad, cmd[0], all)
			}
			if !strings.Contains(e.Path, "xxxxx") || !(strings.Contains(e.Path, empty) || strings.Contains(e.Path, neturl.QueryEscape(empty)) || strings.Contains(e.Path, "127.0.0.1:1")) {
				t.Errorf("%s %s: the error does not name the URL (without its password): path %q\n%s", bad, cmd[0], e.Path, all)
			}
		}
	}

	// Another application's database.
	db := pgtest.Open(t, url)
	if _, err := db.Exec("CREATE TABLE customers (id INT PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'Ana'), (2, 'Bo')"); err != nil {
		t.Fatal(err)
	}
	tables := func() string {
		var names []string
		if err := db.Select(&names, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"); err != nil {
			t.Fatal(err)
		}
		var rows []string
		if err := db.Select(&rows, "SELECT id || ':' || name FROM customers ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		return strings.Join(names, ",") + " " + strings.Join(rows, ",")
	}
	before := tables()
	for _, cmd := range [][]string{{"index", "--root", empty}, {"sessions"}, {"watch", "--root", empty}, {"rebuild"}} {
		code, e, all := groveErr(t, 30*time.Second, append([]string{"--db", url, "--json"}, cmd...)...)
		if code != 1 || e.Code != "not_index" {
			t.Errorf("%s on another application's database: exit %d, code %q, want 1 and not_index\n%s", cmd[0], code, e.Code, all)
		}
		if after := tables(); after != before {
			t.Errorf("%s changed another application's database: %s, was %s", cmd[0], after, before)
		}
	}

	// URLs that are not.
	for _, bad := range []string{
		"postgres://ana:secret@host:99999/grove",
		"postgres://ana:secret@[::1/grove",
		"postgres://ana:secret@host:port/grove",
	} {
		code, e, all := groveErr(t, 30*time.Second, "--db", bad, "--json", "sessions")
		if code == 0 || e.Code == "" || e.Hint == "" {
			t.Errorf("%s: exit %d, code %q, hint %q: want an error with a hint\n%s", bad, code, e.Code, e.Hint, all)
		}
		if strings.Contains(all, "secret") {
			t.Errorf("%s: the password is printed:\n%s", bad, all)
		}
		t.Logf("%s: %s %s", bad, e.Code, e.Message)
	}
}
