package serve_test

// serve marks abandoned branches (SPEC §4.2, §9): a transcript whose path
// leaves the active path says where, the branch box names the active
// path's child, and a search hit off the active path is badged.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The v3 demo (testdata/pi/v3-tree.jsonl) branches at 6a1f9e07: the
// active leaf b7395fc2 lies under f20a9b6e, the leaves 1b3f5d9a and
// 35c7e0da under c7d24b98.
func TestTranscript_Abandoned(t *testing.T) {
	_, _, _, ts := staleServer(t)
	for _, leaf := range []string{"1b3f5d9a", "35c7e0da"} {
		code, body := staleGet(t, ts.URL+"/s/5b7e/"+leaf)
		if code != 200 {
			t.Fatalf("GET transcript of %s = %d", leaf, code)
		}
		ids := entryIDs(body)
		off := slices.Index(ids, "c7d24b98")
		if off < 0 {
			t.Fatalf("the path to %s does not hold c7d24b98: %v", leaf, ids)
		}
		if n := strings.Count(body, `<p class="off" role="separator">`); n != 1 {
			t.Fatalf("transcript of %s: %d abandoned-branch lines, want 1", leaf, n)
		}
		box, line, entry := strings.Index(body, `aria-label="branches at 6a1f9e07"`), strings.Index(body, `<p class="off"`), strings.Index(body, `id="entry-c7d24b98"`)
		if !(box < line && line < entry) {
			t.Errorf("transcript of %s: the branch box at byte %d, the abandoned line at %d, c7d24b98 at %d: want the line after the box, before the entry", leaf, box, line, entry)
		}
		if want := fmt.Sprintf("An abandoned branch from here on: <code title=\"c7d24b98\">c7d24b98</code> and what follows it (%d entries)", len(ids)-off); !strings.Contains(body, want) {
			t.Errorf("transcript of %s does not say %q", leaf, want)
		}
		if want := fmt.Sprintf("abandoned: off the active path after <code title=\"6a1f9e07\">6a1f9e07</code> (the last %d entries;", len(ids)-off); !strings.Contains(body, want) {
			t.Errorf("transcript of %s: the facts do not say %q", leaf, want)
		}
		sib := strings.Index(body[box:], `<code title="f20a9b6e">f20a9b6e</code>`)
		mark := strings.Index(body[box:], `<span class="badge">active path</span>`)
		if sib < 0 || mark < sib || strings.Contains(body[box:box+mark], "</li>") && strings.LastIndex(body[box:box+mark], "</li>") > sib {
			t.Errorf("transcript of %s: the branch box at 6a1f9e07 does not mark f20a9b6e as the active path", leaf)
		}
	}
	// The active leaf's path, and a path to an entry on it, are not
	// marked; the latter's list of where it goes on names the active
	// path's child.
	for _, to := range []string{"b7395fc2", "6a1f9e07"} {
		_, body := staleGet(t, ts.URL+"/s/5b7e/"+to)
		if strings.Contains(body, `class="off"`) || strings.Contains(body, "off-note") {
			t.Errorf("the transcript of %s, on the active path, is marked abandoned", to)
		}
		if to == "6a1f9e07" && strings.Count(body, `<span class="badge">active path</span>`) != 1 {
			t.Errorf("the transcript of %s does not name the one child on the active path", to)
		}
	}
}

// A hit off the active path carries a badge with the leaves it reaches;
// branch=abandoned keeps only those, branch=active only the others.
func TestSearch_Abandoned(t *testing.T) {
	_, _, _, ts := staleServer(t)
	hits := func(query string) (int, string) {
		t.Helper()
		code, body := staleGet(t, ts.URL+"/search?"+query)
		if code != 200 {
			t.Fatalf("GET /search?%s = %d", query, code)
		}
		return strings.Count(body, `<li class="hit">`), body
	}
	// logout: the branch summary f20a9b6e on the active path, and
	// 7d0e2c86 and 35c7e0da on the abandoned branch to 35c7e0da.
	badge := `<span class="badge off-badge" title="not on the path to its session's active leaf">abandoned branch, 1 leaf</span>`
	n, body := hits("q=logout")
	if n != 3 || strings.Count(body, badge) != 2 {
		t.Fatalf("q=logout: %d hits, %d badged abandoned with 1 leaf; want 3 and 2", n, strings.Count(body, badge))
	}
	if n, body := hits("q=logout&branch=abandoned"); n != 2 || strings.Count(body, badge) != 2 {
		t.Errorf("q=logout&branch=abandoned: %d hits, want the 2 abandoned", n)
	}
	if n, body := hits("q=logout&branch=active"); n != 1 || strings.Contains(body, "off-badge") {
		t.Errorf("q=logout&branch=active: %d hits, want the 1 on the active path, unbadged", n)
	}
	n, body = hits("q=jose")
	if n == 0 || strings.Contains(body, "off-badge") {
		t.Errorf("q=jose: %d hits, on the active path, but one is badged abandoned", n)
	}
	if n, _ := hits("q=jose&branch=abandoned"); n != 0 {
		t.Errorf("q=jose&branch=abandoned: %d hits, want 0", n)
	}
	if _, body := hits("q=jose&branch=abandoned"); !strings.Contains(body, `<option value="abandoned" selected>`) {
		t.Errorf("the form does not keep branch=abandoned selected")
	}
}

// A hit on an artifact (SPEC §4.2: the tool result of a parallel tool
// call, kept beside the call that carries the conversation on) is badged
// with its kind, not as an abandoned branch.
func TestSearch_Artifact(t *testing.T) {
	w, file, _, ts := staleServer(t)
	path := filepath.Join(filepath.Dir(file), "c1a0de00-0000-4000-8000-00000000000a.jsonl")
	if err := os.WriteFile(path, []byte(parallelFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), path, true); err != nil {
		t.Fatal(err)
	}
	_, body := staleGet(t, ts.URL+"/search?q=alpha")
	if n := strings.Count(body, `<li class="hit">`); n != 2 {
		t.Fatalf("q=alpha: %d hits, want 2", n)
	}
	if n := strings.Count(body, `<span class="badge off-badge" title="not on a branch a person made">artifact: parallel</span>`); n != 1 || strings.Contains(body, "active leaf\">abandoned branch") {
		t.Errorf("q=alpha: %d hits badged artifact: parallel (want 1), abandoned badge %t (want none)", n, strings.Contains(body, "active leaf\">abandoned branch"))
	}
}

// parallelFile is a Claude Code session of one API message with two tool
// calls, each line on its own (Claude Code 2.1): the result r1 of the
// first call hangs off it beside the second call a2, which carries the
// conversation on to a3.
const parallelFile = `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"read both config files"},"uuid":"u1","timestamp":"2026-03-18T09:00:00.000Z","cwd":"/home/u/par","sessionId":"c1a0de00-0000-4000-8000-00000000000a","version":"2.1.78"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.toml"}}]},"uuid":"a1","timestamp":"2026-03-18T09:00:01.000Z","cwd":"/home/u/par","sessionId":"c1a0de00-0000-4000-8000-00000000000a","version":"2.1.78"}
{"parentUuid":"a1","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b.toml"}}]},"uuid":"a2","timestamp":"2026-03-18T09:00:02.000Z","cwd":"/home/u/par","sessionId":"c1a0de00-0000-4000-8000-00000000000a","version":"2.1.78"}
{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"alpha equals one"}]},"uuid":"r1","timestamp":"2026-03-18T09:00:03.000Z","cwd":"/home/u/par","sessionId":"c1a0de00-0000-4000-8000-00000000000a","version":"2.1.78"}
{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"beta equals two"}]},"uuid":"r2","timestamp":"2026-03-18T09:00:04.000Z","cwd":"/home/u/par","sessionId":"c1a0de00-0000-4000-8000-00000000000a","version":"2.1.78"}
{"parentUuid":"r2","isSidechain":false,"type":"assistant","message":{"id":"msg_2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Both files read: alpha and beta."}]},"uuid":"a3","timestamp":"2026-03-18T09:00:05.000Z","cwd":"/home/u/par","sessionId":"c1a0de00-0000-4000-8000-00000000000a","version":"2.1.78"}
`

// The transcript of the artifact r1 of parallelFile says it leaves the
// active path after a1 to an artifact, not an abandoned branch.
func TestTranscript_Artifact(t *testing.T) {
	w, file, _, ts := staleServer(t)
	path := filepath.Join(filepath.Dir(file), "c1a0de00-0000-4000-8000-00000000000a.jsonl")
	if err := os.WriteFile(path, []byte(parallelFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := w.IndexFile(context.Background(), path, true); err != nil {
		t.Fatal(err)
	}
	_, body := staleGet(t, ts.URL+"/s/c1a0de00/r1")
	if want := `an artifact (parallel), not a branch a person made: off the active path after <code title="a1">a1</code> (the last 1 entry;`; !strings.Contains(body, want) {
		t.Errorf("the transcript of r1 does not say %q", want)
	}
	if want := `<p class="off" role="separator">Off the active path from here on, to an artifact (parallel)`; !strings.Contains(body, want) || strings.Contains(body, "An abandoned branch") {
		t.Errorf("the transcript of r1 does not mark where it leaves the active path as the way to an artifact")
	}
}
