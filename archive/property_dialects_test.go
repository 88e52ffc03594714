package archive_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/grove-sessions/grove/archive"
)

// claudeFile renders edges as a Claude Code transcript (SPEC §3.4): each
// entry a user, assistant, system or compact_boundary line, some of them
// sidechains, with metadata and bad lines (a user line without uuid)
// between them.
func claudeFile(rt *rapid.T, edges []genEdge) []byte {
	var b strings.Builder
	for i, e := range edges {
		switch rapid.IntRange(0, 7).Draw(rt, "between") {
		case 0:
			b.WriteString(`{"type":"file-history-snapshot","messageId":"x","snapshot":{}}` + "\n")
		case 1:
			fmt.Fprintf(&b, `{"type":"summary","summary":"s%d","leafUuid":"e%d"}`+"\n", i, i)
		case 2:
			b.WriteString(`{"type":"user","message":{"role":"user","content":"no uuid"}}` + "\n")
		case 3:
			b.WriteString("\n")
		}
		parent := "null"
		if e.parent != nil {
			p, _ := json.Marshal(*e.parent)
			parent = string(p)
		}
		id, _ := json.Marshal(e.id)
		side := rapid.IntRange(0, 3).Draw(rt, "side") == 0
		ts := fmt.Sprintf("2026-03-18T09:%02d:%02d.000Z", i/60%60, i%60)
		body := fmt.Sprintf(`"type":"user","message":{"role":"user","content":"m%d"}`, i)
		switch {
		case e.parent == nil && rapid.Bool().Draw(rt, "boundary"):
			body = `"type":"system","subtype":"compact_boundary","logicalParentUuid":"e0","content":"Conversation compacted"`
		case e.assistant:
			body = fmt.Sprintf(`"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"m%d"}]}`, i)
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":%t,%s,"uuid":%s,"timestamp":%q,"cwd":"/w","sessionId":"s"}`+"\n", parent, side, body, id, ts)
	}
	return []byte(b.String())
}

// For random Claude Code trees (many roots, sidechains, branches, duplicate
// uuids, missing parents, cycles, metadata and bad lines between the
// entries), the CTE over a real SQLite index gives PathTo's answer for
// every entry, the index's leaves are Leaves', and its active leaf is
// ActiveLeaf's: the last leaf that is no sidechain (SPEC §3.4, §4, §6).
func TestPathCTE_EqualsPathTo_Claude(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	raw, err := sql.Open("sqlite", filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	file := filepath.Join(dir, "s.jsonl")
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(rt, "n")
		var edges []genEdge
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("e%d", i)
			if rapid.IntRange(0, 25).Draw(rt, "dupChance") == 0 {
				id = fmt.Sprintf("e%d", rapid.IntRange(0, n).Draw(rt, "dupOf"))
			}
			var parent *string
			switch k := rapid.IntRange(0, 9).Draw(rt, "parentKind"); {
			case k <= 1: // a root
			case k == 2: // any id: cycles, self-parents, forward references
				p := fmt.Sprintf("e%d", rapid.IntRange(0, n-1).Draw(rt, "anyParent"))
				parent = &p
			case k == 3:
				p := "missing"
				parent = &p
			default:
				if i > 0 {
					p := edges[rapid.IntRange(0, i-1).Draw(rt, "earlier")].id
					parent = &p
				}
			}
			edges = append(edges, genEdge{id: id, parent: parent, assistant: rapid.Bool().Draw(rt, "assistant")})
		}
		if err := os.WriteFile(file, claudeFile(rt, edges), 0o644); err != nil {
			rt.Fatal(err)
		}
		if _, _, _, err := a.IndexFile(ctx, file, true); err != nil {
			rt.Fatal(err)
		}
		s, err := archive.DBOf(a).SessionByPath(ctx, file)
		if err != nil || s == nil {
			rt.Fatalf("session not indexed: %v", err)
		}
		loaded, err := archive.Load(file)
		if err != nil {
			rt.Fatal(err)
		}
		if loaded.Dialect != "claude" || s.Dialect != "claude" {
			rt.Fatalf("dialect %s / %s, want claude", loaded.Dialect, s.Dialect)
		}
		for _, leaf := range append([]string{"no-such-entry"}, edgeIDs(edges)...) {
			if got, want := cteAnswer(ctx, archive.DBOf(a), s.SID, leaf), pathToAnswer(loaded.Entries, leaf); got != want {
				rt.Fatalf("leaf %q: CTE = %s, PathTo = %s", leaf, got, want)
			}
		}
		idxLeaves, err := archive.DBOf(a).Leaves(ctx, s.SID)
		if err != nil {
			rt.Fatal(err)
		}
		var gotLeaves, wantLeaves []string
		for _, l := range idxLeaves {
			gotLeaves = append(gotLeaves, l.EntryID)
		}
		for _, l := range archive.Leaves(loaded.Entries) {
			wantLeaves = append(wantLeaves, l.ID)
		}
		if !slices.Equal(gotLeaves, wantLeaves) {
			rt.Fatalf("leaves: index %v, Leaves %v", gotLeaves, wantLeaves)
		}
		want := archive.ActiveLeaf(loaded.Dialect, loaded.Entries)
		if s.ActiveLeaf == nil || *s.ActiveLeaf != want {
			rt.Fatalf("active leaf: index %v, ActiveLeaf %q", s.ActiveLeaf, want)
		}
		// One leaf row is marked active at most, even with duplicated uuids:
		// the highest one with the active leaf's id.
		rows, err := a.Leaves(ctx, archive.Filter{Session: file})
		if err != nil {
			rt.Fatal(err)
		}
		var activeLines []int
		for _, r := range rows {
			if r.Active {
				activeLines = append(activeLines, r.Leaf.Line)
			}
		}
		if len(activeLines) > 1 {
			rt.Fatalf("leaves marked active on lines %v; one at most", activeLines)
		}
		// The entries marked active are the path to it, when it has one.
		p, err := archive.PathTo(loaded.Entries, want)
		if err != nil {
			return
		}
		var marked []string
		marks, err := raw.QueryContext(ctx, "SELECT entry_id FROM entries WHERE sid = ? AND active = 1 ORDER BY seq", s.SID)
		if err != nil {
			rt.Fatal(err)
		}
		for marks.Next() {
			var id string
			marks.Scan(&id)
			marked = append(marked, id)
		}
		marks.Close()
		var onPath []string
		for _, e := range p {
			onPath = append(onPath, e.ID)
		}
		slices.Sort(marked)
		slices.Sort(onPath)
		if !slices.Equal(marked, onPath) {
			rt.Fatalf("entries marked active %v, path to the active leaf %v", marked, onPath)
		}
	})
}

func edgeIDs(edges []genEdge) []string {
	var out []string
	for _, e := range edges {
		out = append(out, e.id)
	}
	return out
}
