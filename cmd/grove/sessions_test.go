package main

import (
	"fmt"
	"slices"
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
	out, depth := underParents(in)
	var got []string
	for i, s := range out {
		got = append(got, fmt.Sprintf("%d:%s", depth[i], s.SessionID))
	}
	want := []string{"0:other", "1:fork", "0:main", "1:agent-b", "2:agent-c", "0:orphan", "0:self", "0:loop1", "1:loop2"}
	if !slices.Equal(got, want) {
		t.Fatalf("underParents:\n got %v\nwant %v", got, want)
	}
}
