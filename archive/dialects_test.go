package archive_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// treeExpect is a testdata/<dialect>/*.tree.json file: what SPEC §3.4–3.6
// and FORMATS.md say grove must find in the session file beside it,
// written by hand.
type treeExpect struct {
	Dialect       string              `json:"dialect"`
	SessionID     string              `json:"session_id"`
	Workspace     string              `json:"workspace"` // "<dir>": the folder holding the file
	Name          string              `json:"name"`
	ParentSession string              `json:"parent_session"`
	State         string              `json:"state"`
	Lines         int                 `json:"lines"`
	Entries       [][2]*string        `json:"entries"` // [id, parent or null], file order
	Leaves        []string            `json:"leaves"`
	Active        string              `json:"active"`
	BranchPoints  map[string][]string `json:"branch_points"`
	Paths         map[string][]string `json:"paths"`
	Messages      map[string][]string `json:"messages"` // leaf -> ids of the entries whose message MessagesOnPath gives
	Diagnostics   [][2]any            `json:"diagnostics"`
	Copies        []string            `json:"copies"` // codex: entries whose text repeats a response_item
}

// dialectFixtures are the session files of testdata/{messages,claude,codex}
// that have a .tree.json beside them.
func dialectFixtures(t *testing.T) map[string]treeExpect {
	t.Helper()
	out := map[string]treeExpect{}
	for _, d := range []string{"messages", "claude", "codex"} {
		root := testutil.Testdata(t, d)
		err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(p, ".tree.json") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var e treeExpect
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out[strings.TrimSuffix(p, ".tree.json")+".jsonl"] = e
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 5 {
		t.Fatalf("found %d dialect fixtures, want at least 5", len(out))
	}
	return out
}

func (w treeExpect) workspace(path string) string {
	if w.Workspace == "<dir>" {
		return filepath.Dir(path)
	}
	return w.Workspace
}

// messageIDs are the ids of the path entries whose message MessagesOnPath
// returns, matched by bytes.
func messageIDs(t *testing.T, s *archive.File, leaf string) []string {
	t.Helper()
	msgs, err := archive.MessagesOnPath(s.Dialect, s.Entries, leaf)
	if err != nil {
		t.Fatalf("MessagesOnPath(%q): %v", leaf, err)
	}
	path, _ := archive.PathTo(s.Entries, leaf)
	rules := jsonl.RulesOf(s.Dialect)
	var ids []string
	k := 0
	for _, e := range path {
		if k < len(msgs) && rules.HasMessage(e.Type, e.Role) && string(rules.Message(e.Type, e.Raw)) == string(msgs[k]) {
			ids = append(ids, e.ID)
			k++
		}
	}
	if k != len(msgs) {
		t.Fatalf("MessagesOnPath(%q) gave %d messages that are no path entry's", leaf, len(msgs)-k)
	}
	return ids
}

// The pure side: Load, PathTo, Leaves, BranchPoints, ActiveLeaf and
// MessagesOnPath answer what the fixture's .tree.json says.
func TestLoad_DialectFixtures(t *testing.T) {
	for path, want := range dialectFixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, err := archive.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{
				"dialect": string(s.Dialect), "id": s.ID, "workspace": s.Workspace, "name": s.Name,
				"parent": s.ParentSession, "state": string(s.Result.State()), "lines": s.Result.Lines,
			}
			wantFacts := map[string]any{
				"dialect": want.Dialect, "id": want.SessionID, "workspace": want.workspace(path), "name": want.Name,
				"parent": want.ParentSession, "state": want.State, "lines": want.Lines,
			}
			if !reflect.DeepEqual(got, wantFacts) {
				t.Errorf("Load facts = %v, want %v", got, wantFacts)
			}
			var edges [][2]*string
			var copies []string
			for _, e := range s.Entries {
				id := e.ID
				var parent *string
				if !e.Root {
					p := e.ParentID
					parent = &p
				}
				edges = append(edges, [2]*string{&id, parent})
				if e.Copy {
					copies = append(copies, e.ID)
				}
			}
			if g, w := fmtEdges(edges), fmtEdges(want.Entries); g != w {
				t.Errorf("entries = %s\nwant      %s", g, w)
			}
			if !slices.Equal(copies, want.Copies) {
				t.Errorf("copies = %v, want %v", copies, want.Copies)
			}
			var leaves []string
			for _, l := range archive.Leaves(s.Entries) {
				leaves = append(leaves, l.ID)
			}
			if !slices.Equal(leaves, want.Leaves) {
				t.Errorf("Leaves = %v, want %v", leaves, want.Leaves)
			}
			bps := map[string][]string{}
			for _, b := range archive.BranchPoints(s.Entries) {
				bps[b.ID] = b.Children
			}
			if !reflect.DeepEqual(bps, nonNil(want.BranchPoints)) {
				t.Errorf("BranchPoints = %v, want %v", bps, want.BranchPoints)
			}
			if a := archive.ActiveLeaf(s.Dialect, s.Entries); a != want.Active {
				t.Errorf("ActiveLeaf = %q, want %q", a, want.Active)
			}
			for leaf, ids := range want.Paths {
				p, err := archive.PathTo(s.Entries, leaf)
				if err != nil {
					t.Fatalf("PathTo(%q): %v", leaf, err)
				}
				var got []string
				for _, e := range p {
					got = append(got, e.ID)
				}
				if !slices.Equal(got, ids) {
					t.Errorf("PathTo(%q) = %v, want %v", leaf, got, ids)
				}
			}
			for leaf, ids := range want.Messages {
				if got := messageIDs(t, s, leaf); !slices.Equal(got, ids) {
					t.Errorf("MessagesOnPath(%q) = messages of %v, want %v", leaf, got, ids)
				}
			}
			var diags [][2]any
			for _, e := range append(append([]*errs.Error{}, s.Result.Warnings...), s.Result.Errors...) {
				diags = append(diags, [2]any{string(e.Code), float64(e.Line)})
			}
			slices.SortFunc(diags, func(a, b [2]any) int { return int(a[1].(float64) - b[1].(float64)) })
			if !reflect.DeepEqual(nonNilDiags(diags), nonNilDiags(want.Diagnostics)) {
				t.Errorf("diagnostics = %v, want %v", diags, want.Diagnostics)
			}
		})
	}
}

// The index side: the same files indexed answer the same through the
// sessions row, the CTE path, the leaves and messages queries.
func TestIndex_DialectFixtures(t *testing.T) {
	ctx := context.Background()
	fixtures := dialectFixtures(t)
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	var roots []string
	for _, d := range []string{"messages", "claude", "codex"} {
		roots = append(roots, testutil.Testdata(t, d))
	}
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: roots}); err != nil {
		t.Fatal(err)
	}
	for path, want := range fixtures {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, err := a.Resolve(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			active := ""
			if s.ActiveLeaf != nil {
				active = *s.ActiveLeaf
			}
			// Every leaf, as the pure tree has them (Leaves counts the real
			// ones of the conversation: branch kinds and sub-agent runs).
			got := []any{string(s.Dialect), s.SessionID, s.Workspace, s.Name, s.ParentSession, string(s.State), s.Lines, s.Entries, s.AllLeaves, active}
			wantRow := []any{want.Dialect, want.SessionID, want.workspace(path), want.Name, want.ParentSession, want.State, want.Lines, len(want.Entries), len(want.Leaves), want.Active}
			if !reflect.DeepEqual(got, wantRow) {
				t.Errorf("sessions row (dialect, id, workspace, name, parent, state, lines, entries, leaves, active) = %v, want %v", got, wantRow)
			}
			for leaf, ids := range want.Paths {
				p, err := a.Path(ctx, path, leaf)
				if err != nil {
					t.Fatalf("Path(%q): %v", leaf, err)
				}
				var got []string
				for _, e := range p.Entries {
					got = append(got, e.EntryID)
				}
				if !slices.Equal(got, ids) {
					t.Errorf("CTE path(%q) = %v, want %v", leaf, got, ids)
				}
			}
			pure, err := archive.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for leaf := range want.Messages {
				_, msgs, err := a.Messages(ctx, path, leaf)
				if err != nil {
					t.Fatalf("Messages(%q): %v", leaf, err)
				}
				wantMsgs, _ := archive.MessagesOnPath(pure.Dialect, pure.Entries, leaf)
				if len(msgs) != len(wantMsgs) {
					t.Fatalf("Messages(%q) = %d messages, want %d", leaf, len(msgs), len(wantMsgs))
				}
				for i := range msgs {
					if string(msgs[i]) != string(wantMsgs[i]) {
						t.Errorf("Messages(%q)[%d] = %s, want %s", leaf, i, msgs[i], wantMsgs[i])
					}
				}
			}
			leaves, err := a.Leaves(ctx, archive.Filter{Session: path})
			if err != nil {
				t.Fatal(err)
			}
			var actives []string
			for _, l := range leaves {
				if l.Active {
					actives = append(actives, l.EntryID)
				}
			}
			if !slices.Equal(actives, []string{want.Active}) {
				t.Errorf("leaves marked active = %v, want [%s]", actives, want.Active)
			}
		})
	}
	rep, err := a.Verify(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatches != 0 || rep.Stale != 0 {
		t.Errorf("verify: %d mismatches, %d stale: %+v", rep.Mismatches, rep.Stale, rep.Problems)
	}
}

func fmtEdges(es [][2]*string) string {
	var b strings.Builder
	for _, e := range es {
		p := "null"
		if e[1] != nil {
			p = *e[1]
		}
		b.WriteString(*e[0] + "<-" + p + " ")
	}
	return b.String()
}

func nonNil(m map[string][]string) map[string][]string {
	if m == nil {
		return map[string][]string{}
	}
	return m
}

func nonNilDiags(d [][2]any) [][2]any {
	if d == nil {
		return [][2]any{}
	}
	return d
}

// Copies of one entry in several files are one search hit with also_in
// (issue: Claude's --fork-session keeps uuids and re-stamps sessionId;
// Codex forks replay the parent's items with new times on other lines),
// and the total counts them once.
func TestSearch_DialectForkCopiesAreOneHit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const (
		parentID = "11111111-0000-4000-8000-000000000001"
		forkID   = "22222222-0000-4000-8000-000000000002"
	)
	claudeLine := func(session, uuid, parent, text string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"parentUuid":` + p + `,"isSidechain":false,"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid +
			`","timestamp":"2026-03-18T09:31:52.776Z","cwd":"/w","sessionId":"` + session + `"}` + "\n"
	}
	testutil.MustWriteFile(t, filepath.Join(dir, "claude", "projects", "-w"), parentID+".jsonl",
		[]byte(claudeLine(parentID, "u1", "", "zanzibar quokka")+claudeLine(parentID, "u2", "u1", "only in the parent")))
	testutil.MustWriteFile(t, filepath.Join(dir, "claude", "projects", "-w"), forkID+".jsonl",
		[]byte(claudeLine(forkID, "u1", "", "zanzibar quokka")+claudeLine(forkID, "u3", "u1", "only in the fork")))
	const (
		codexParent = "019c8bfe-0000-7000-8000-00000000000a"
		codexFork   = "019c8bfe-0000-7000-8000-00000000000b"
	)
	meta := func(id, forkedFrom string) string {
		f := ""
		if forkedFrom != "" {
			f = `,"forked_from_id":"` + forkedFrom + `"`
		}
		return `{"timestamp":"2026-02-23T19:34:26.098Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/c"` + f + `}}` + "\n"
	}
	item := func(ts, text string) string {
		return `{"timestamp":"` + ts + `","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}` + "\n"
	}
	sessions := filepath.Join(dir, "codex", "sessions", "2026", "02", "23")
	testutil.MustWriteFile(t, sessions, "rollout-2026-02-23T20-34-25-"+codexParent+".jsonl",
		[]byte(meta(codexParent, "")+item("2026-02-23T19:34:27.000Z", "ocelot marmalade")))
	testutil.MustWriteFile(t, sessions, "rollout-2026-02-24T08-00-00-"+codexFork+".jsonl",
		[]byte(meta(codexFork, codexParent)+meta(codexParent, "")+item("2026-02-24T08:00:01.000Z", "ocelot marmalade")+item("2026-02-24T08:00:02.000Z", "ocelot elsewhere")))
	// An unrelated Codex session saying the same is no copy.
	testutil.MustWriteFile(t, sessions, "rollout-2026-02-25T08-00-00-019c8bfe-0000-7000-8000-00000000000c.jsonl",
		[]byte(meta("019c8bfe-0000-7000-8000-00000000000c", "")+item("2026-02-25T08:00:01.000Z", "ocelot marmalade")))

	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query   string
		hits    int
		alsoIn  map[string][]string // hit session -> also_in
		dialect string
	}{
		{"quokka", 1, map[string][]string{parentID: {forkID}}, ""},
		{"quokka", 1, map[string][]string{parentID: {forkID}}, "claude"},
		{"quokka", 0, nil, "codex"},
		{"marmalade", 2, map[string][]string{codexParent: {codexFork}, "019c8bfe-0000-7000-8000-00000000000c": {}}, ""},
		{"elsewhere", 1, map[string][]string{codexFork: {}}, ""},
	} {
		res, err := a.Search(ctx, archive.SearchOptions{Query: c.query, Dialect: c.dialect})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, h := range res.Hits {
			got[h.SessionID] = h.AlsoIn
		}
		if len(res.Hits) != c.hits || res.Total != c.hits || (c.hits > 0 && !reflect.DeepEqual(got, c.alsoIn)) {
			t.Errorf("search %q (dialect %q) = %d hits (total %d) %v, want %d %v", c.query, c.dialect, len(res.Hits), res.Total, got, c.hits, c.alsoIn)
		}
	}
}

// A Claude Code session's name comes from metadata lines, no entries: a
// query it matches finds the session (SPEC §7 session names, FORMATS.md §4
// title metadata), as a pi session_info name is found.
func TestSearch_ClaudeTitlesFindTheSession(t *testing.T) {
	ctx := context.Background()
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{testutil.Testdata(t, "claude")}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query, dialect string
		want           []string // session ids of the session hits
	}{
		{`"rewind demo"`, "", []string{"7f3c2a10-0000-4000-8000-000000000001"}},
		{"warm", "claude", []string{"agent-a9f1c2d"}},
		{"rewind -demo", "", nil},
		{"rewind", "codex", nil},
	} {
		res, err := a.Search(ctx, archive.SearchOptions{Query: c.query, Dialect: c.dialect})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			if h.Type == "session" {
				got = append(got, h.SessionID)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("search %q (dialect %q): session hits %v, want %v", c.query, c.dialect, got, c.want)
		}
	}
}

// One prompt sent twice in one Codex rollout is two entries, two hits: only
// another session of the family (a fork replaying the items in order) holds
// copies, the k-th item of a payload of the k-th. The count goes on across
// an append (the earlier items are counted from the index) and equals a
// clean build.
func TestSearch_CodexSameTextTwiceIsTwoHits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const (
		parent = "019c8bfe-0000-7000-8000-00000000001a"
		fork   = "019c8bfe-0000-7000-8000-00000000001b"
	)
	meta := func(id, forkedFrom string) string {
		f := ""
		if forkedFrom != "" {
			f = `,"forked_from_id":"` + forkedFrom + `"`
		}
		return `{"timestamp":"2026-02-23T19:34:26.098Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/c"` + f + `}}` + "\n"
	}
	turn := `{"timestamp":"2026-02-23T19:34:26.500Z","type":"turn_context","payload":{"cwd":"/c","model":"gpt-5-codex"}}` + "\n"
	item := func(ts, text string) string {
		return `{"timestamp":"` + ts + `","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}` + "\n"
	}
	sessions := filepath.Join(dir, "2026", "02", "23")
	parentFile := testutil.MustWriteFile(t, sessions, "rollout-2026-02-23T20-34-25-"+parent+".jsonl",
		[]byte(meta(parent, "")+turn+item("2026-02-23T19:34:27.000Z", "riword continue")+turn+item("2026-02-23T19:35:27.000Z", "riword continue")))
	testutil.MustWriteFile(t, sessions, "rollout-2026-02-24T08-00-00-"+fork+".jsonl",
		[]byte(meta(fork, parent)+meta(parent, "")+turn+item("2026-02-24T08:00:01.000Z", "riword continue")+turn+item("2026-02-24T08:00:02.000Z", "riword continue")))

	db := filepath.Join(t.TempDir(), "index.db")
	a := mustOpenArchive(t, db)
	hits := func(a *archive.Archive, want int) {
		t.Helper()
		res, err := a.Search(ctx, archive.SearchOptions{Query: "riword"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.SessionID[len(h.SessionID)-2:]+"/"+h.EntryID+" also_in "+strings.Join(h.AlsoIn, ","))
		}
		if len(res.Hits) != want || res.Total != want {
			t.Fatalf("search riword: %d hits (total %d): %v; want %d, each in the parent with the fork as also_in", len(res.Hits), res.Total, got, want)
		}
		for _, h := range res.Hits {
			if h.SessionID != parent || len(h.AlsoIn) != 1 || h.AlsoIn[0] != fork {
				t.Fatalf("search riword: %v; want every hit in the parent, also in the fork", got)
			}
		}
	}
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	hits(a, 2)

	// The fork and the parent both go on with the prompt a third time.
	for _, f := range []string{parentFile, filepath.Join(sessions, "rollout-2026-02-24T08-00-00-"+fork+".jsonl")} {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(turn + item("2026-02-25T08:00:00.000Z", "riword continue"))
		fh.Close()
	}
	if sum, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil || sum.Appended != 2 {
		t.Fatalf("refresh = %+v, %v; want both files read on from where they were", sum, err)
	}
	hits(a, 3)
	clean := mustOpenArchive(t, filepath.Join(t.TempDir(), "clean.db"))
	if _, err := clean.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	hits(clean, 3)
}
