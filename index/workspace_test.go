package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/migrations"
)

// The workspace rule (SPEC §3.3): a path prefix on a separator boundary;
// a Windows path matches with "\" and "/" alike and the drive letter in
// either case.
func TestUnderWorkspace(t *testing.T) {
	for _, c := range []struct {
		ws, dir string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/a/b/c", "/a/b/", true},
		{"/a", "/", true},
		{"", "/", false},
		{"", "", true},
		{"/x", "", true},
		{`e:\Workspace\app`, `e:\Workspace\app`, true},
		{`e:\Workspace\app`, `E:/Workspace/app`, true},
		{`E:/Workspace/app`, `e:\Workspace`, true},
		{`e:\Workspace\app\sub`, `e:\Workspace`, true},
		{`e:\Workspace\app\sub`, `E:\Workspace\app\`, true},
		{`e:\WorkspaceX`, `e:\Workspace`, false},
		{`e:\Workspace-x\app`, `e:\Workspace`, false},
		{`e:\Workspace`, `e:\Workspace\app`, false},
		{`e:\workspace\app`, `e:\Workspace`, false}, // only the drive letter's case is free
		{`e:\Workspace\app`, `e:\`, true},
		{`e:\Workspace\app`, `E:`, true},
		{`f:\Workspace\app`, `e:\`, false},
		{`e:\Workspace\app`, `e:\Workspace\.\app\..`, true},
		{`e:\Workspace\app`, "/", false},
		{`\\server\share\app`, `\\server\share`, true},
		{`\\server\share\app`, "//server/share", true},
		{`\\server\sharex`, `\\server\share`, false},
		{"-home-ana-app", "-home-ana-app", true},
		{"-home-ana-app", "-home-ana", false},
		{"e:relative", "e:relative", true},
		{"e:relative", "E:relative", false}, // no Windows path: as it is
	} {
		if got := UnderWorkspace(c.ws, c.dir); got != c.want {
			t.Errorf("UnderWorkspace(%q, %q) = %v, want %v", c.ws, c.dir, got, c.want)
		}
	}
}

func TestWorkspaceKey(t *testing.T) {
	for _, c := range []struct{ ws, want string }{
		{"/home/ana/app", "/home/ana/app"},
		{`e:\Workspace\app`, "E:/Workspace/app"},
		{"E:/Workspace/app", "E:/Workspace/app"},
		{`c:\`, "C:/"},
		{"c:", "C:"},
		{`\\server\share\x`, "//server/share/x"},
		{`\\\x`, `\\\x`},
		{"e:relative", "e:relative"},
		{`a\b`, `a\b`},
		{"", ""},
	} {
		if got := WorkspaceKey(c.ws); got != c.want {
			t.Errorf("WorkspaceKey(%q) = %q, want %q", c.ws, got, c.want)
		}
	}
}

// workspaceRows are workspaces of every kind the rule tells apart.
var workspaceRows = []string{
	"/a", "/a/b", "/a/b/c", "/a/bc", "/a/b-c", "/a/b.c", "/a/b/", "/", "", "/é/x",
	`e:\Workspace\app`, "E:/Workspace/app/sub", `e:\Workspace\app\sub\deeper`, `e:\WorkspaceX`, `e:\Workspace-x`,
	`E:\Workspace`, "e:/workspace/app", `f:\Workspace\app`, `C:\Users\ana\app`, `c:\`,
	`\\server\share\app`, `\\server\sharex`,
	"-home-ana-app", "-home-ana-app-x", "e:relative", "rel/dir",
}

// workspaceDirs are --workspace filters: those WorkspaceDir makes, and
// workspaces as another system wrote them.
var workspaceDirs = []string{
	"/", "/a", "/a/b", "/a/b/", "/a/bc", "/é", "/nothing",
	`e:\Workspace`, `E:/Workspace/`, `e:\Workspace\app`, "E:/Workspace/app/sub", `e:\`, "E:", `e:\Workspace\.\app\..`,
	`c:/users/ana`, `C:\Users`, `\\server\share`, "-home-ana-app", "rel",
}

// eachBackend runs test with a new SQLite index and with a new
// PostgreSQL database (skipped, saying why, without PostgreSQL).
func eachBackend(t *testing.T, test func(t *testing.T, d *DB)) {
	t.Run("sqlite", func(t *testing.T) { test(t, mustOpen(t, testutil.MustTempDB(t))) })
	t.Run("postgres", func(t *testing.T) {
		d, err := Open(context.Background(), pgtest.DB(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		d.SetSource("test")
		test(t, d)
	})
}

// storeWorkspaces stores one session per workspace of workspaceRows, at
// /s/<i>.jsonl.
func storeWorkspaces(t *testing.T, d *DB) {
	t.Helper()
	for i, ws := range workspaceRows {
		ts := int64(1_700_000_000_000)
		entries := []Entry{{EntryID: "e1", Type: "message", TsMs: &ts, Length: 10, Text: []byte("text")}}
		s := &Session{Path: fmt.Sprintf("/s/%02d.jsonl", i), SessionID: fmt.Sprint(i), Dialect: "plain", State: "ok", Workspace: ws}
		if _, err := d.Replace(context.Background(), s, entries, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// The SQL form of the rule selects, in both databases, exactly the
// sessions UnderWorkspace selects, in Sessions, Workspaces, search and
// HoldsWorkspace; and in one order: every session ties on its time, so
// sessions and hits come by path (the order of workspaceRows) and
// workspaces by name.
func TestWorkspaceCond_EqualsUnderWorkspace(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *DB) {
		ctx := context.Background()
		storeWorkspaces(t, d)
		q, err := ParseQuery("text")
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range workspaceDirs {
			var want []string
			for _, ws := range workspaceRows {
				if UnderWorkspace(ws, dir) {
					want = append(want, ws)
				}
			}
			sessions, err := d.Sessions(ctx, SessionFilter{Workspace: dir})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sessions {
				got = append(got, s.Workspace)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Sessions(--workspace %q) = %q, want %q", dir, got, want)
			}
			res, err := d.Search(ctx, SearchParams{Query: q, Workspace: dir, Limit: 100, NoDedupe: true})
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, h := range res.Hits {
				got = append(got, h.Workspace)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Search(--workspace %q) = %q, want %q", dir, got, want)
			}
			ws, err := d.Workspaces(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, w := range ws {
				got = append(got, w.Workspace)
			}
			if want = slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
				t.Errorf("Workspaces(%q) = %q, want %q", dir, got, want)
			}
			if held, err := d.HoldsWorkspace(ctx, dir); err != nil || held != (len(want) > 0) {
				t.Errorf("HoldsWorkspace(%q) = %v, %v; want %v", dir, held, err, len(want) > 0)
			}
		}
	})
}

// The migration that adds workspace_key fills it, in SQL, for the rows
// made before it, exactly as WorkspaceKey does for the rows grove writes.
func TestWorkspaceKey_MigrationEqualsGo(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *DB) {
		ctx := context.Background()
		storeWorkspaces(t, d)
		file := "0010_workspace_key.sql"
		if d.IsServer() {
			file = "postgres/0002_workspace_key.sql"
		}
		b, err := migrations.FS.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sql := string(b)
		start := strings.Index(sql, "UPDATE sessions SET workspace_key")
		end := strings.Index(sql[max(start, 0):], ";")
		if start < 0 || end < 0 {
			t.Fatalf("%s has no UPDATE of workspace_key", file)
		}
		if _, err := d.db.DB.ExecContext(ctx, "UPDATE sessions SET workspace_key = ''"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.db.DB.ExecContext(ctx, sql[start:start+end]); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var rows []struct {
			Workspace string `db:"workspace"`
			Key       string `db:"workspace_key"`
		}
		if err := d.db.SelectContext(ctx, &rows, "SELECT workspace, workspace_key FROM sessions"); err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(workspaceRows) {
			t.Fatalf("%d sessions, want %d", len(rows), len(workspaceRows))
		}
		for _, r := range rows {
			if want := WorkspaceKey(r.Workspace); r.Key != want {
				t.Errorf("%s: workspace %q has the key %q, WorkspaceKey gives %q", file, r.Workspace, r.Key, want)
			}
		}
	})
}

// --workspace is one range of the index sessions_by_workspace_key, not a
// scan of every session.
func TestWorkspaceCond_QueryPlan(t *testing.T) {
	for _, dir := range []string{"/home/ana", `e:\Workspace`, "/"} {
		q, args := sessionsQuery(SessionFilter{Workspace: dir})
		if plan := queryPlan(t, q, args...); !strings.Contains(plan, "USING INDEX sessions_by_workspace_key (workspace_key>? AND workspace_key<?)") {
			t.Errorf("plan of --workspace %q: %s; want a range of sessions_by_workspace_key", dir, plan)
		}
	}
}
