package archive_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The real leaves of every Claude Code file of ../shared/corpus (SPEC
// §4.2), each checked by reading the file; the lines are physical lines.
var corpusRealLeaves = map[string]struct {
	real []int // lines of the real leaves, newest first as `grove leaves` lists them
	all  int   // leaves of any kind
	bps  int   // real branch points
}{
	// 1.0.55. The caveat on line 1 has two children: the /clear on line 2,
	// whose output (line 3) the prompt on line 4 follows, so it carries the
	// conversation to the assistant's last line (13); and the `!` shell
	// input on line 14, written 1 h 4 min later, whose output (line 15) is
	// the last line of the file and so the active leaf. Both are branches:
	// a real branch point, two real leaves.
	"71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl": {real: []int{15, 13}, all: 2, bps: 1},
	// 2.0.x writes parallel tool calls in a chain (three tool_use lines,
	// then three results): one conversation, one leaf.
	"5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl": {real: []int{12}, all: 1},
	// Sub-agent warm-ups: a prompt and its answer.
	"agent-c3d572ee.jsonl": {real: []int{2}, all: 1},
	"agent-c63fe96c.jsonl": {real: []int{2}, all: 1},
	// One chain of 28 entries after a meta line.
	"1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": {real: []int{29}, all: 1},
	// 2.0's inline Task runs (isSidechain) start at roots of their own:
	// the main chain's leaf (438) and the five runs' last lines are leaves
	// of separate roots, no branch point, so no kind applies.
	"fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": {real: []int{438, 429, 293, 222, 123, 36}, all: 6},
	// 2.1: a hook progress root, then one prompt and its answer, a chain.
	"29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl": {real: []int{6}, all: 1},
	// 2.1 sub-agent run with parallel tool calls: each tool_use is its
	// own line of its API message and each result hangs off its own call,
	// so 15 results (lines 5, 11, 12, 18, 19, 25, 26, 31, 37, 38, 43, 49,
	// 50, 56, 57) are dead ends beside the call that carries the run on:
	// parallel. The one conversation ends on line 59, the last answer.
	"agent-a2271d1.jsonl": {real: []int{59}, all: 16},
}

func TestKinds_ClaudeCorpus(t *testing.T) {
	ctx := context.Background()
	root := testutil.MustShared(t, "corpus/claude")
	a := mustOpenArchive(t, testutil.MustTempDB(t))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{root}}); err != nil {
		t.Fatal(err)
	}
	sessions, err := a.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, s := range sessions {
		want, ok := corpusRealLeaves[filepath.Base(s.Path)]
		if !ok {
			t.Errorf("%s: a Claude Code file of the corpus this test has not read; write down its real leaves", s.Path)
			continue
		}
		seen++
		leaves, err := a.Leaves(ctx, archive.Filter{Session: s.Path})
		if err != nil {
			t.Fatal(err)
		}
		var lines []int
		for _, l := range leaves {
			lines = append(lines, l.Line)
			if l.PathKind != "branch" {
				t.Errorf("%s: real leaf on line %d has kind %s", s.Path, l.Line, l.PathKind)
			}
		}
		if !slices.Equal(lines, want.real) {
			t.Errorf("%s: real leaves on lines %v, want %v", s.Path, lines, want.real)
		}
		all, err := a.Leaves(ctx, archive.Filter{Session: s.Path, All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != want.all || s.AllLeaves != want.all || s.Leaves != len(want.real) {
			t.Errorf("%s: %d leaves with --all (session: %d of which %d real), want %d of which %d real", s.Path, len(all), s.AllLeaves, s.Leaves, want.all, len(want.real))
		}
		bps, err := a.BranchPoints(ctx, archive.Filter{Session: s.Path})
		if err != nil {
			t.Fatal(err)
		}
		if len(bps) != want.bps {
			t.Errorf("%s: %d real branch points, want %d", s.Path, len(bps), want.bps)
		}
	}
	if seen != len(corpusRealLeaves) {
		t.Errorf("read %d of the %d files this test knows", seen, len(corpusRealLeaves))
	}
}
