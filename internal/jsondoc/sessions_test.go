package jsondoc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// TestUnderParents: a session whose parent_session names another listed
// session (by id or path) comes right under it, nested sub-agents deeper;
// an unlisted parent or a loop leaves sessions on their own, each once.
func TestUnderParents(t *testing.T) {
	in := []archive.Session{
		{SessionID: "agent-b", Dialect: "claude", ParentSession: "main"},    // newest
		{SessionID: "other", Dialect: "pi", Path: "/s/other.jsonl"},         //
		{SessionID: "agent-c", Dialect: "claude", ParentSession: "agent-b"}, // nested
		{SessionID: "fork", Dialect: "pi", ParentSession: "/s/other.jsonl"}, // by path
		{SessionID: "main", Dialect: "claude"},
		{SessionID: "orphan", Dialect: "claude", ParentSession: "gone"},
		{SessionID: "loop1", ParentSession: "loop2"},
		{SessionID: "loop2", ParentSession: "loop1"},
		{SessionID: "self", ParentSession: "self"},
	}
	out, depth := UnderParents(in)
	var got []string
	for i, s := range out {
		got = append(got, fmt.Sprintf("%d:%s", depth[i], s.SessionID))
	}
	want := []string{"0:other", "1:fork", "0:main", "1:agent-b", "2:agent-c", "0:orphan", "0:self", "0:loop1", "1:loop2"}
	if !slices.Equal(got, want) {
		t.Fatalf("underParents:\n got %v\nwant %v", got, want)
	}
}

// In a team's index each machine's copy of a parent keeps its own
// sub-agents: a child goes under the parent of its own source (SPEC §10).
func TestUnderParents_PerSource(t *testing.T) {
	var list []archive.Session
	for _, src := range []string{"alpha", "beta"} {
		list = append(list, archive.Session{SessionID: "p", Path: "/s/p.jsonl", Source: src},
			archive.Session{SessionID: "c", Path: "/s/p/c.jsonl", Source: src, ParentSession: "p"})
	}
	out, depth := UnderParents(list)
	var got []string
	for i, s := range out {
		got = append(got, fmt.Sprintf("%s:%s:%d", s.Source, s.SessionID, depth[i]))
	}
	if want := "alpha:p:0 alpha:c:1 beta:p:0 beta:c:1"; strings.Join(got, " ") != want {
		t.Fatalf("listed %v, want %s", got, want)
	}
}
