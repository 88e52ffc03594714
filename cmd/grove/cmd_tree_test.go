package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/testutil"
)

// updateGolden is -update: rewrite the golden files of this package's
// tests (testdata/tree, testdata/export). Defined once, here.
var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// groveIn runs grove in-process against the index db and returns its exit
// status, stdout and stderr.
func groveIn(t testing.TB, db string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"grove", "--db", db}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mustIndexed indexes the files into a new index and returns its path.
func mustIndexed(t testing.TB, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	var args []string
	for _, f := range files {
		args = append(args, testutil.MustCopy(t, f, filepath.Join(dir, "sessions"), filepath.Base(f)))
	}
	if code, _, stderr := groveIn(t, db, append([]string{"index"}, args...)...); code != 0 {
		t.Fatalf("grove index = %d: %s", code, stderr)
	}
	return db
}

// The text of `grove tree` on the pi fixtures, against golden files in
// testdata/tree (go test -run TestTree_Golden -update rewrites them).
func TestTree_Golden(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), testutil.Testdata(t, "pi/v2-branches.jsonl"))
	tests := []struct {
		name string
		args []string
	}{
		{"v3-tree", []string{"tree", "5b7e"}},
		{"v3-tree-full", []string{"tree", "--full", "5b7e"}},
		{"v3-tree-depth1", []string{"tree", "--depth", "1", "5b7e"}},
		{"v2-branches", []string{"tree", "e4c1"}},
		{"v2-branches-full", []string{"tree", "--full", "e4c1"}},
		{"v2-branches-depth1", []string{"tree", "--depth", "1", "e4c1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, got, stderr := groveIn(t, db, tc.args...)
			if code != 0 {
				t.Fatalf("grove %s = %d: %s", strings.Join(tc.args, " "), code, stderr)
			}
			testutil.MustMatchGolden(t, filepath.Join("testdata", "tree", tc.name+".golden"), got, *updateGolden)
		})
	}
}

// What a person relies on in the text: the name, the labels that hold, no
// cleared label, one active leaf, every line within 120 columns.
func TestTree_TextMarks(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"))
	_, out, _ := groveIn(t, db, "tree", "--full", "5b7e")
	for _, want := range []string{`"Auth refactor (JWT)"`, "[auth-done]", "← active", "├── c7d24b98", "└── f20a9b6e", "│   ├── 07f9a6c5", "│   └── 7d0e2c86"} {
		if !strings.Contains(out, want) {
			t.Errorf("grove tree --full 5b7e has no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[decision-point]") || strings.Count(out, "← active") != 1 {
		t.Errorf("grove tree --full 5b7e: want no [decision-point] (cleared) and one active mark:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if displayWidth(l) > treeWidth {
			t.Errorf("line of %d columns, want at most %d: %s", displayWidth(l), treeWidth, l)
		}
	}
}

// The JSON has SPEC §8's shape: every node has id, type, role, label,
// active, preview and children, role and label null when absent; fold and
// cut nodes have a null id.
func TestTree_JSONShape(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), testutil.Testdata(t, "cases/07-missing-parent.jsonl"),
		testutil.Testdata(t, "cases/09-parent-cycle.jsonl"))
	type node struct {
		ID       *string          `json:"id"`
		Type     string           `json:"type"`
		Role     *string          `json:"role"`
		Label    *string          `json:"label"`
		Active   bool             `json:"active"`
		Preview  string           `json:"preview"`
		Folded   int              `json:"folded"`
		Leaves   int              `json:"leaves"`
		Problems []string         `json:"problems"`
		Parent   string           `json:"parent"`
		Children []map[string]any `json:"children"`
	}
	tests := []struct {
		name string
		args []string
		want string // the nodes, depth first: id:type/role[label]*(problems)
	}{
		{"v3-tree folded", []string{"tree", "5b7e"}, "a3f0c912:model_change 5e81b7d4:thinking_level_change 0d2c6fa8:session_info " +
			"7c49e1b3:message/user -:fold(2) 2f6d8a41:message/assistant b80e5c63:message/toolResult 6a1f9e07:message/assistant " +
			"c7d24b98:label 13e5f8a2:message/user -:fold(3) d5c80e6b:message/bashExecution 61f3a9c4:custom_message " +
			"9e2b4d87:message/assistant[auth-done] 4a8c7e12:label be15d3f0:compaction 07f9a6c5:message/user " +
			"c2e48b1d:message/assistant 58ad03e9:message/toolResult ee6172b4:session_info 1b3f5d9a:message/assistant " +
			"7d0e2c86:message/user a96b48f1:future_thing 35c7e0da:message/assistant f20a9b6e:branch_summary 8c51d3a7:label " +
			"49e7f21c:message/bashExecution 2d94c1f7:model_change d1b6a058:message/user 6f2c8e93:message/assistant " +
			"0ae4d7b5:message/toolResult b7395fc2:message/assistant*"},
		{"v3-tree depth 1", []string{"tree", "--depth", "1", "--full", "5b7e"}, "a3f0c912:model_change 5e81b7d4:thinking_level_change " +
			"0d2c6fa8:session_info 7c49e1b3:message/user e1a8d05f:message/assistant 94b3c27e:message/toolResult " +
			"2f6d8a41:message/assistant b80e5c63:message/toolResult 6a1f9e07:message/assistant -:cut(26/3)"},
		{"missing parent", []string{"tree", filepath.Join("sessions", "07-missing-parent.jsonl")},
			"e01:message/user e02:message/assistant e03:message/user e04:message/assistant(missing_parent<x9f3c2a1) e05:message/user*"},
		{"cycle", []string{"tree", filepath.Join("sessions", "09-parent-cycle.jsonl")},
			"e01:message/user e02:message/assistant(cycle<e04) e03:message/user e04:message/assistant e05:message/user " +
				"e06:message/assistant*(cycle<e06)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--json"}, tc.args...)
			for i, a := range args {
				if strings.HasPrefix(a, "sessions") {
					args[i] = filepath.Join(filepath.Dir(db), a)
				}
			}
			code, out, stderr := groveIn(t, db, args...)
			if code != 0 || !json.Valid([]byte(out)) {
				t.Fatalf("grove %s = %d, valid JSON %t: %s %s", strings.Join(args, " "), code, json.Valid([]byte(out)), out, stderr)
			}
			var doc struct {
				Session string           `json:"session"`
				Roots   []map[string]any `json:"roots"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Session == "" {
				t.Fatalf("grove %s: %v, session %q", strings.Join(args, " "), err, doc.Session)
			}
			var got []string
			stack := append([]map[string]any(nil), doc.Roots...)
			for i, j := 0, len(stack)-1; i < j; i, j = i+1, j-1 {
				stack[i], stack[j] = stack[j], stack[i]
			}
			for len(stack) > 0 {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, k := range []string{"id", "type", "role", "label", "active", "preview", "children"} {
					if _, ok := m[k]; !ok {
						t.Fatalf("node %v has no %q", m, k)
					}
				}
				raw, _ := json.Marshal(m)
				var n node
				json.Unmarshal(raw, &n)
				s := "-:" + n.Type
				if n.ID != nil {
					s = *n.ID + ":" + n.Type
				}
				if n.Role != nil {
					s += "/" + *n.Role
				}
				if n.Label != nil {
					s += "[" + *n.Label + "]"
				}
				if n.Active {
					s += "*"
				}
				switch n.Type {
				case "fold":
					s += fmt.Sprintf("(%d)", n.Folded)
				case "cut":
					s += fmt.Sprintf("(%d/%d)", n.Folded, n.Leaves)
				}
				if len(n.Problems) > 0 {
					s += "(" + strings.Join(n.Problems, ",") + "<" + n.Parent + ")"
				}
				got = append(got, s)
				for i := len(n.Children) - 1; i >= 0; i-- {
					stack = append(stack, n.Children[i])
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("grove %s =\n%s\nwant\n%s", strings.Join(args, " "), g, tc.want)
			}
		})
	}
}

// jsonTokens checks that data is exactly one JSON document with a
// streaming decoder (json.Valid refuses nesting deeper than 10,000, which
// a linear chain of entries is) and counts the object members named key.
func jsonTokens(t testing.TB, data []byte, key string) int {
	t.Helper()
	type level struct{ obj, key bool } // an open object or array; an object expecting a key
	var st []level
	dec := json.NewDecoder(bytes.NewReader(data))
	n, docs := 0, 0
	done := func() { // a value ended
		if len(st) == 0 {
			docs++
		} else if st[len(st)-1].obj {
			st[len(st)-1].key = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		d, delim := tok.(json.Delim)
		switch {
		case delim && (d == '}' || d == ']'):
			st = st[:len(st)-1]
			done()
		case len(st) > 0 && st[len(st)-1].key:
			if tok == key {
				n++
			}
			st[len(st)-1].key = false
		case delim:
			st = append(st, level{obj: d == '{', key: d == '{'})
		default:
			done()
		}
	}
	if docs != 1 || len(st) != 0 {
		t.Fatalf("%d JSON documents, %d left open; want one", docs, len(st))
	}
	return n
}

// piEntries makes n entry rows: a chain when bushy is false, else each
// entry's parent one of the three before it.
func piEntries(n int, bushy bool) []archive.Entry {
	r := rand.New(rand.NewSource(1))
	roles := []string{"user", "assistant", "toolResult", "assistant", "toolResult"}
	es := make([]archive.Entry, n)
	ts := int64(1772524800000)
	for i := range es {
		role := roles[i%len(roles)]
		es[i] = archive.Entry{Seq: i, EntryID: fmt.Sprintf("%08x", uint32(i)*2654435761), Type: "message", Role: &role, Line: i + 2, TsMs: &ts}
		if i > 0 {
			p := es[i-1].EntryID
			if bushy {
				p = es[i-1-r.Intn(min(i, 3))].EntryID
			}
			es[i].ParentID = &p
		}
	}
	return es
}

// A 100,000-entry chain and a 100,000-entry bushy session draw as text and
// JSON with a 1 MiB stack (a recursive walk of that depth overflows it),
// every entry once with --full, every line within bounds, the JSON valid.
func TestTree_Large(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "five 100,000-entry trees drawn as text and JSON")
	sess := &archive.Session{SessionID: "big", Workspace: "/w", Leaves: 1}
	tests := []struct {
		name  string
		es    []archive.Entry
		opt   archive.TreeOptions
		lines int // entry lines in the text; -1: do not check
	}{
		{"chain full", piEntries(100_000, false), archive.TreeOptions{Full: true}, 100_000},
		{"chain folded", piEntries(100_000, false), archive.TreeOptions{}, -1},
		{"bushy full", piEntries(100_000, true), archive.TreeOptions{Full: true}, 100_000},
		{"bushy folded", piEntries(100_000, true), archive.TreeOptions{}, -1},
		{"bushy depth 5", piEntries(100_000, true), archive.TreeOptions{Depth: 5}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := archive.BuildTree(tc.es, nil, tc.es[len(tc.es)-1].EntryID, tc.opt)
			var text, js bytes.Buffer
			func() {
				defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
				if err := writeTreeText(&text, sess, tr); err != nil {
					t.Fatal(err)
				}
				if err := jsondoc.WriteTree(&js, sess.SessionID, tr); err != nil {
					t.Fatal(err)
				}
			}()
			entryLines := 0
			for _, l := range strings.Split(text.String(), "\n") {
				if displayWidth(l) > treeWidth {
					t.Fatalf("line of %d columns, want at most %d: %s", displayWidth(l), treeWidth, l)
				}
				if strings.Contains(l, "  user") || strings.Contains(l, "  assistant") || strings.Contains(l, "  toolResult") {
					entryLines++
				}
			}
			if tc.lines >= 0 && entryLines != tc.lines {
				t.Errorf("%d entry lines, want %d", entryLines, tc.lines)
			}
			if got := jsonTokens(t, js.Bytes(), "id"); got != len(tr.Nodes) {
				t.Errorf("JSON has %d nodes, want %d", got, len(tr.Nodes))
			}
			if bytes.Count(js.Bytes(), []byte(`"id":"`)) != tr.Shown {
				t.Errorf("JSON has %d entry nodes, want %d", bytes.Count(js.Bytes(), []byte(`"id":"`)), tr.Shown)
			}
		})
	}
}

// The real session of the corpus (a pi version 1 file of 1,018 entries,
// one long chain): folded it reads as its outline of user prompts; --full
// draws every entry; --json is valid.
func TestTree_Corpus(t *testing.T) {
	src := testutil.MustShared(t, "corpus/pi/large-session.jsonl")
	db := mustIndexed(t, src)
	code, out, stderr := groveIn(t, db, "tree", "d703a1a9")
	if code != 0 {
		t.Fatalf("grove tree d703a1a9 = %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "session d703a1a9-1b7b-4fb1-b512-c9738b1fe617  /Users/badlogic/workspaces/pi-mono  1018 entries, 1 leaf") ||
		!strings.Contains(out, "L1019") || !strings.Contains(out, "← active") || len(lines) > 400 || len(lines) < 100 {
		t.Errorf("grove tree d703a1a9: %d lines, want 100-400 with the header and the active leaf L1019:\n%s", len(lines), out)
	}
	_, full, _ := groveIn(t, db, "tree", "--full", "d703a1a9")
	if n := strings.Count(full, "\nL"); n != 1018 {
		t.Errorf("grove tree --full d703a1a9: %d entry lines, want 1018", n)
	}
	for _, args := range [][]string{{"--json", "tree", "d703a1a9"}, {"--json", "tree", "--full", "d703a1a9"}} {
		code, js, _ := groveIn(t, db, args...)
		if code != 0 || jsonTokens(t, []byte(js), "id") == 0 {
			t.Errorf("grove %s = %d, want valid JSON", strings.Join(args, " "), code)
		}
	}
}

// piChainFile is a pi session file of n entries (a chain, or bushy): a
// user prompt every 12 entries (the corpus session has one in 11.6), then
// assistant turns with tool calls and their results.
func piChainFile(n int, bushy bool) []byte {
	r := rand.New(rand.NewSource(1))
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"bench-tree-0001","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/bench"}` + "\n")
	base := time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC)
	id := func(i int) string { return fmt.Sprintf("%08x", uint32(i)*2654435761) }
	for i := 0; i < n; i++ {
		parent := "null"
		if i > 0 {
			p := i - 1
			if bushy {
				p = i - 1 - r.Intn(min(i, 3))
			}
			parent = `"` + id(p) + `"`
		}
		ts := base.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
		var msg string
		switch k := i % 12; {
		case k == 0:
			msg = fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"step %d: fix the failing test in index/query.go and run the tests again"}]}`, i)
		case k%2 == 1:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"The test fails because the CTE walks past the root; check the join."},{"type":"text","text":"Running the tests (%d)."},{"type":"toolCall","id":"t%d","name":"bash","arguments":{"command":"go test ./..."}}]}`, i, i)
		default:
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"t%d","toolName":"bash","isError":false,"content":[{"type":"text","text":"ok  \tgithub.com/grove-sessions/grove/index\t0.%03ds\nok  \tgithub.com/grove-sessions/grove/archive\t1.204s"}]}`, i-1, i%1000)
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":%s}`+"\n", id(i), parent, ts, msg)
	}
	return b.Bytes()
}

// BenchmarkTree runs `grove tree` on an indexed 100,000-entry linear
// session (32 MB): folded, --full, and --full --json; each includes
// opening the index, reading the entry rows and the shown lines back.
func BenchmarkTree(b *testing.B) {
	dir := b.TempDir()
	f := testutil.MustWriteFile(b, dir, "bench.jsonl", piChainFile(100_000, false))
	db := filepath.Join(dir, "index.db")
	if code, _, stderr := groveIn(b, db, "index", f); code != 0 {
		b.Fatalf("grove index = %d: %s", code, stderr)
	}
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"baseline-path", []string{"path", "bench-tree"}}, // the CTE walk of the same 100,000-entry path
		{"folded", []string{"tree", "bench-tree"}},
		{"full", []string{"tree", "--full", "bench-tree"}},
		{"full-json", []string{"--json", "tree", "--full", "bench-tree"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if code := run(context.Background(), append([]string{"grove", "--db", db}, bc.args...), io.Discard, io.Discard); code != 0 {
					b.Fatalf("grove %v = %d", bc.args, code)
				}
			}
		})
	}
}

// BenchmarkTreeRender draws a built 100,000-entry chain with --full, as
// text and as JSON, previews of 100 characters (no index, no file).
func BenchmarkTreeRender(b *testing.B) {
	es := piEntries(100_000, false)
	tr := archive.BuildTree(es, nil, es[len(es)-1].EntryID, archive.TreeOptions{Full: true})
	for i := range tr.Nodes {
		tr.Nodes[i].Preview = strings.Repeat("the tests pass ", 7)[:100]
	}
	sess := &archive.Session{SessionID: "big", Workspace: "/w", Leaves: 1}
	b.Run("text", func(b *testing.B) {
		for b.Loop() {
			writeTreeText(io.Discard, sess, tr)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			jsondoc.WriteTree(io.Discard, sess.SessionID, tr)
		}
	})
}

// --json --flat lists the nested form's nodes in the same order, each
// naming the position of its parent node, and never nests: on a
// 100,000-entry chain the JSON is three levels deep.
func TestTree_FlatJSON(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), testutil.Testdata(t, "cases/09-parent-cycle.jsonl"))
	type nested struct {
		ID       *string  `json:"id"`
		Type     string   `json:"type"`
		Children []nested `json:"children"`
	}
	type flatNode struct {
		ID     *string `json:"id"`
		Type   string  `json:"type"`
		Node   int     `json:"node"`
		Parent *int    `json:"parent_node"`
	}
	name := func(id *string, typ string) string {
		if id == nil {
			return "-:" + typ
		}
		return *id + ":" + typ
	}
	for _, args := range [][]string{{"5b7e"}, {"--full", "5b7e"}, {"--depth", "1", "5b7e"}, {"--full", "sess-0001"}} {
		code, out, stderr := groveIn(t, db, append([]string{"--json", "tree"}, args...)...)
		if code != 0 {
			t.Fatalf("tree %v: %s", args, stderr)
		}
		var tree struct{ Roots []nested }
		if err := json.Unmarshal([]byte(out), &tree); err != nil {
			t.Fatal(err)
		}
		var want []string // name>parent position, depth first
		var walk func(n nested, parent int)
		walk = func(n nested, parent int) { // fixture trees are shallow
			k := len(want)
			want = append(want, fmt.Sprintf("%s>%d", name(n.ID, n.Type), parent))
			for _, c := range n.Children {
				walk(c, k)
			}
		}
		for _, r := range tree.Roots {
			walk(r, -1)
		}
		code, out, stderr = groveIn(t, db, append([]string{"--json", "tree", "--flat"}, args...)...)
		if code != 0 {
			t.Fatalf("tree --flat %v: %s", args, stderr)
		}
		var flat struct{ Nodes []flatNode }
		if err := json.Unmarshal([]byte(out), &flat); err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, n := range flat.Nodes {
			p := -1
			if n.Parent != nil {
				p = *n.Parent
			}
			if n.Node != i {
				t.Errorf("tree --flat %v: node %d says node %d", args, i, n.Node)
			}
			got = append(got, fmt.Sprintf("%s>%d", name(n.ID, n.Type), p))
		}
		if g, w := strings.Join(got, " "), strings.Join(want, " "); g != w {
			t.Errorf("tree --flat %v =\n%s\nwant (the nested form)\n%s", args, g, w)
		}
	}
	if code, _, stderr := groveIn(t, db, "tree", "--flat", "5b7e"); code != 2 || !strings.Contains(stderr, "--json") {
		t.Errorf("tree --flat without --json = %d, %s; want a usage error", code, stderr)
	}

	t.Run("100000-entry chain", func(t *testing.T) {
		testutil.SkipSlow(t, "./cmd/grove", "indexes and draws a 100,000-entry chain")
		big := mustIndexed(t, testutil.MustWriteFile(t, t.TempDir(), "chain.jsonl", piChainFile(100_000, false)))
		code, out, stderr := groveIn(t, big, "--json", "tree", "--full", "--flat", "bench-tree")
		if code != 0 {
			t.Fatalf("tree --full --flat on 100,000 entries: %s", stderr)
		}
		dec := json.NewDecoder(strings.NewReader(out))
		depth, deepest, nodes := 0, 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
				deepest = max(deepest, depth)
				if depth == 3 {
					nodes++
				}
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
		}
		if deepest != 3 || nodes != 100_000 {
			t.Errorf("tree --full --flat on a 100,000-entry chain: %d nodes, %d levels deep; want 100000 nodes, 3 levels", nodes, deepest)
		}
	})
}

// The header's leaf count is the one every listing shows (the session's
// real leaves); the end of an inline sub-agent run the tree draws is named
// beside it, not added to it.
func TestTree_HeaderCountsRealLeaves(t *testing.T) {
	db := mustIndexed(t, testutil.Testdata(t, "claude/7f3c2a10-0000-4000-8000-000000000001.jsonl"))
	code, out, stderr := groveIn(t, db, "--json", "sessions")
	if code != 0 {
		t.Fatalf("grove sessions = %d: %s", code, stderr)
	}
	var list struct{ Sessions []struct{ Leaves int } }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Sessions) != 1 {
		t.Fatalf("grove --json sessions: %v\n%s", err, out)
	}
	want := fmt.Sprintf("16 entries, %d leaves (and 1 leaf of sub-agent runs)", list.Sessions[0].Leaves)
	for _, args := range [][]string{{"tree", "7f3c2a10"}, {"tree", "--all", "7f3c2a10"}} {
		code, out, stderr := groveIn(t, db, args...)
		if head, _, _ := strings.Cut(out, "\n"); code != 0 || !strings.Contains(head, want) {
			t.Errorf("grove %s = %d: header %q, want it to say %q\n%s", strings.Join(args, " "), code, head, want, stderr)
		}
	}
}
