package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

func mustLoad(t *testing.T, rel string) *archive.Session {
	t.Helper()
	s, err := archive.Load(testutil.Testdata(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The chapter's tree (the session-tree chapter, in the plain dialect).
func TestPathTo_ChapterTree(t *testing.T) {
	s := mustLoad(t, "plain/chapter-tree.jsonl")
	if s.ID != "chapter-tree" || s.Dialect != jsonl.Plain || s.Workspace != "/workspace/tiny-pi" {
		t.Fatalf("session %q %s workspace %q, want chapter-tree plain /workspace/tiny-pi", s.ID, s.Dialect, s.Workspace)
	}
	for leaf, want := range map[string]string{
		"meta-cwd": "u-1 a-read r-read a-final meta-cwd",
		"a-alt":    "u-1 a-alt",
		"u-1":      "u-1",
	} {
		p, err := archive.PathTo(s.Entries, leaf)
		if got := ids(p); err != nil || got != want {
			t.Errorf("PathTo(%q) = %q, %v; want %q", leaf, got, err, want)
		}
	}
	var leaves []string
	for _, l := range archive.Leaves(s.Entries) {
		leaves = append(leaves, l.ID)
	}
	if !slices.Equal(leaves, []string{"a-alt", "meta-cwd"}) {
		t.Errorf("Leaves = %v, want [a-alt meta-cwd] (file order)", leaves)
	}
	bps := archive.BranchPoints(s.Entries)
	if len(bps) != 1 || bps[0].ID != "u-1" || !slices.Equal(bps[0].Children, []string{"a-read", "a-alt"}) {
		t.Errorf("BranchPoints = %+v, want u-1 -> [a-read a-alt]", bps)
	}
	if got := archive.ActiveLeaf(s.Dialect, s.Entries); got != "meta-cwd" {
		t.Errorf("ActiveLeaf = %q, want meta-cwd", got)
	}
}

// MessagesOnPath keeps every field byte for byte: each message is exactly
// the bytes of the line's "message" value (SPEC §4).
func TestMessagesOnPath_ChapterTree(t *testing.T) {
	s := mustLoad(t, "plain/chapter-tree.jsonl")
	msgs, err := archive.MessagesOnPath(s.Dialect, s.Entries, "meta-cwd")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 {
		t.Fatalf("MessagesOnPath(meta-cwd) = %d messages, want 4", len(msgs))
	}
	file, _ := os.ReadFile(testutil.Testdata(t, "plain/chapter-tree.jsonl"))
	roles := []string{"user", "assistant", "toolResult", "assistant"}
	for i, m := range msgs {
		if !bytes.Contains(file, append([]byte(`"message":`), m...)) {
			t.Errorf("message %d is not byte for byte in the file: %s", i, m)
		}
		var r struct{ Role string }
		json.Unmarshal(m, &r)
		if r.Role != roles[i] {
			t.Errorf("message %d role = %q, want %q", i, r.Role, roles[i])
		}
	}
	var call struct {
		Content []struct {
			ID, Name  string
			Arguments map[string]any
		}
	}
	json.Unmarshal(msgs[1], &call)
	if len(call.Content) != 1 || call.Content[0].ID != "call-1" || call.Content[0].Name != "read" || call.Content[0].Arguments["path"] != "README.md" {
		t.Errorf("tool call = %+v, want call-1 read {path: README.md}", call.Content)
	}
	var res struct {
		ToolCallID, ToolName string
		IsError              bool
		Details              map[string]any
	}
	json.Unmarshal(msgs[2], &res)
	if res.ToolCallID != "call-1" || res.ToolName != "read" || res.IsError || res.Details["path"] != "README.md" {
		t.Errorf("tool result = %+v, want call-1 read isError false with details", res)
	}
}

// Results are deep copies: what a caller does to them never reaches the
// entries they came from (SPEC §4 rule 3).
func TestPathTo_DeepCopies(t *testing.T) {
	s := mustLoad(t, "plain/chapter-tree.jsonl")
	before := string(s.Entries[1].Raw)
	p, _ := archive.PathTo(s.Entries, "a-final")
	for i := range p[1].Raw {
		p[1].Raw[i] = 'X'
	}
	msgs, _ := archive.MessagesOnPath(s.Dialect, s.Entries, "a-final")
	for i := range msgs[1] {
		msgs[1][i] = 'Y'
	}
	if string(s.Entries[1].Raw) != before {
		t.Fatalf("changing PathTo's result changed the entries")
	}
	again, _ := archive.MessagesOnPath(s.Dialect, s.Entries, "a-final")
	if !bytes.Contains(again[1], []byte(`"call-1"`)) {
		t.Fatalf("changing MessagesOnPath's result changed the entries: %s", again[1])
	}
}

func TestPathTo_Errors(t *testing.T) {
	mk := func(id, parent string, line int) jsonl.Entry {
		return jsonl.Entry{ID: id, ParentID: parent, Root: parent == "", Line: line}
	}
	tests := []struct {
		name    string
		entries []jsonl.Entry
		leaf    string
		code    errs.Code
		id      string
		parent  string
		lines   []int
	}{
		{"duplicate anywhere fails first", []jsonl.Entry{mk("a", "", 1), mk("b", "a", 2), mk("x", "", 3), mk("x", "", 4)}, "b", errs.CodeDuplicateID, "x", "", []int{3, 4}},
		{"unknown leaf", []jsonl.Entry{mk("a", "", 1)}, "z", errs.CodeUnknownEntry, "z", "", nil},
		{"missing parent names child and parent", []jsonl.Entry{mk("a", "", 1), mk("b", "gone", 2), mk("c", "b", 3)}, "c", errs.CodeMissingParent, "b", "gone", nil},
		{"self parent", []jsonl.Entry{mk("a", "a", 1)}, "a", errs.CodeCycle, "a", "", nil},
		{"cycle below the leaf", []jsonl.Entry{mk("a", "c", 1), mk("b", "a", 2), mk("c", "b", 3), mk("d", "c", 4)}, "d", errs.CodeCycle, "c", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := archive.PathTo(tt.entries, tt.leaf)
			e, ok := err.(*errs.Error)
			if !errors.Is(err, errs.New(tt.code, "")) {
				t.Errorf("errors.Is(%v, code %s) = false", err, tt.code)
			}
			if !ok || e.Code != tt.code || e.ID != tt.id || e.Parent != tt.parent || !slices.Equal(e.Lines, tt.lines) {
				t.Fatalf("PathTo(%q) = %v, %v; want %s id %q parent %q lines %v", tt.leaf, ids(p), err, tt.code, tt.id, tt.parent, tt.lines)
			}
		})
	}
	if _, err := archive.PathTo([]jsonl.Entry{mk("a", "a", 1)}, "a"); !errors.Is(err, errs.ErrCycle) || errors.Is(err, errs.ErrMissingParent) {
		t.Errorf("errors.Is with sentinels: %v should be ErrCycle only", err)
	}
	// A broken branch elsewhere does not stop a healthy path.
	es := []jsonl.Entry{mk("a", "", 1), mk("b", "a", 2), mk("c", "gone", 3), mk("d", "d", 4)}
	if p, err := archive.PathTo(es, "b"); err != nil || ids(p) != "a b" {
		t.Fatalf("PathTo(b) = %q, %v; want \"a b\"", ids(p), err)
	}
}

// The pi fixtures, in memory and through the index: leaves, branch points,
// active leaf, paths, names, labels and workspaces as their .expected.txt
// files say.
func TestPiFixtures(t *testing.T) {
	tests := []struct {
		file, id, workspace, name string
		version                   int
		leaves                    string
		branches                  string
		labels                    map[string]string
		paths                     map[string]int // leaf -> path length
	}{
		{file: "pi/v1-linear.jsonl", id: "9d3f6b21-4c8e-4a57-b0d2-6e1f8a3c5b70", workspace: "/home/dev/projects/v1-demo", version: 1,
			leaves: "L11", paths: map[string]int{"L11": 10}},
		{file: "pi/v2-branches.jsonl", id: "e4c1a7b2-3f58-4d9e-a6b0-7c2d1e9f8a35", workspace: "/home/dev/projects/api-server", version: 2,
			leaves: "5f1b7d2e e7a05c3b 06c4a8d7", branches: "1e6f7a82>9d0c4b57,d83e6a04 c19d7f24>2b8e6d90,94f2b1e6",
			labels: map[string]string{"1e6f7a82": "router-choice"}, paths: map[string]int{"06c4a8d7": 14, "e7a05c3b": 14, "5f1b7d2e": 9}},
		{file: "pi/v3-tree.jsonl", id: "5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13", workspace: "/workspace/demo-app", name: "Auth refactor (JWT)", version: 3,
			leaves: "1b3f5d9a 35c7e0da b7395fc2", branches: "6a1f9e07>c7d24b98,f20a9b6e be15d3f0>07f9a6c5,7d0e2c86",
			labels: map[string]string{"9e2b4d87": "auth-done"}, paths: map[string]int{"b7395fc2": 17, "1b3f5d9a": 24, "35c7e0da": 22}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustLoad(t, tt.file)
			if s.ID != tt.id || s.Workspace != tt.workspace || s.Name != tt.name || s.Header.Version != tt.version {
				t.Errorf("id %q workspace %q name %q version %d, want %q %q %q %d", s.ID, s.Workspace, s.Name, s.Header.Version, tt.id, tt.workspace, tt.name, tt.version)
			}
			if len(s.Result.Errors)+len(s.Result.Warnings) != 0 {
				t.Errorf("diagnostics %v %v, want none", s.Result.Errors, s.Result.Warnings)
			}
			if got := ids(archive.Leaves(s.Entries)); got != tt.leaves {
				t.Errorf("leaves = %q, want %q", got, tt.leaves)
			}
			var bs []string
			for _, b := range archive.BranchPoints(s.Entries) {
				bs = append(bs, b.ID+">"+strings.Join(b.Children, ","))
			}
			if got := strings.Join(bs, " "); got != tt.branches {
				t.Errorf("branch points = %q, want %q", got, tt.branches)
			}
			if len(s.Labels) != len(tt.labels) {
				t.Errorf("labels = %v, want %v", s.Labels, tt.labels)
			}
			for k, v := range tt.labels {
				if s.Labels[k] != v {
					t.Errorf("label of %s = %q, want %q", k, s.Labels[k], v)
				}
			}
			a := mustOpenArchive(t, testutil.MustTempDB(t))
			if _, err := a.Index(ctx, archive.IndexOptions{Files: []string{s.Path}}); err != nil {
				t.Fatal(err)
			}
			for leaf, n := range tt.paths {
				p, err := archive.PathTo(s.Entries, leaf)
				res, cerr := a.Path(ctx, tt.id[:8], leaf)
				if err != nil || cerr != nil || len(p) != n || len(res.Entries) != n {
					t.Errorf("path(%s): PathTo %d entries (%v), CTE %v; want %d", leaf, len(p), err, cerr, n)
				}
			}
			leaves, err := a.Leaves(ctx, archive.Filter{Workspace: tt.workspace})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range leaves {
				if want := tt.paths[l.Leaf.EntryID]; l.Leaf.Depth == nil || *l.Leaf.Depth != want {
					t.Errorf("leaf %s depth %v, want %d", l.Leaf.EntryID, l.Leaf.Depth, want)
				}
				if l.Preview == "" {
					t.Errorf("leaf %s has no preview", l.Leaf.EntryID)
				}
			}
		})
	}
}

// A v1 compaction's firstKeptEntryIndex counts parsed lines with the header
// at 0 (SPEC §3.2): index 6 names physical line 7, id L7.
func TestV1_FirstKeptEntryIndex(t *testing.T) {
	s := mustLoad(t, "pi/v1-linear.jsonl")
	for _, e := range s.Entries {
		if e.Type == "compaction" && e.FirstKept != "L7" {
			t.Fatalf("compaction %s firstKept = %q, want L7", e.ID, e.FirstKept)
		}
	}
}
