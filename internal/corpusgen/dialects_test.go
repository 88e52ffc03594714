package corpusgen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"testing"
)

// dialectOptions make the corpus of every dialect: a fifth each, damage,
// images and sub-agents at high rates.
var dialectOptions = Options{Seed: 8, Size: 20_000_000, ChineseShare: 0.2, ImageRate: 0.05,
	DamageRate: 0.4, PlainShare: 0.5, ForkRate: 0.2, ClaudeShare: 0.3, CodexShare: 0.2,
	MessagesShare: 0.2, SubagentRate: 0.5, MaxSession: 700_000}

var mixed struct {
	once sync.Once
	dir  string
	m    *Manifest
	err  error
}

// mustMixed returns the corpus of dialectOptions, generated once per test
// binary (TestMain's directory is removed with it).
func mustMixed(tb testing.TB) (string, *Manifest) {
	tb.Helper()
	mixed.once.Do(func() {
		mixed.dir, mixed.err = os.MkdirTemp("", "corpusgen-mixed-")
		if mixed.err == nil {
			mixed.m, mixed.err = Generate(context.Background(), mixed.dir, dialectOptions)
		}
	})
	if mixed.err != nil {
		tb.Fatalf("generate the mixed corpus: %v", mixed.err)
	}
	return mixed.dir, mixed.m
}

// xnode is an entry as the test reads it, by the rules of FORMATS.md and
// SPEC §3 rather than by the generator's bookkeeping.
type xnode struct {
	id, parent string // parent "" for a root
	line       int
	raw        []byte
	obj        map[string]any
}

// readDialect reads f by its dialect's rules: the entries in file order
// and the number of metadata lines. Header, declared bad line and tail
// are skipped; any other line that is not JSON fails the test.
func readDialect(tb testing.TB, dir string, f File) (nodes []xnode, metadata int) {
	tb.Helper()
	lines := mustLines(tb, filepath.Join(dir, f.Path))
	prev := ""
	for i, l := range lines[:len(lines)-1] {
		num := i + 1
		if f.Damage == DamageBadLine && num == f.DamageLine {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal(l, &o); err != nil {
			tb.Fatalf("%s:%d: %v", f.Path, num, err)
		}
		n := xnode{line: num, raw: l, obj: o}
		str := func(k string) string { s, _ := o[k].(string); return s }
		switch f.Dialect {
		case "pi", "plain":
			if f.Dialect == "pi" && num == 1 {
				continue
			}
			n.id, n.parent = str("id"), str("parentId")
		case "claude":
			if str("uuid") == "" {
				metadata++
				continue
			}
			n.id, n.parent = str("uuid"), str("parentUuid")
		case "codex":
			if num == 1 {
				if str("type") != "session_meta" {
					tb.Fatalf("%s: line 1 is %q, not session_meta", f.Path, str("type"))
				}
				continue
			}
			n.id, n.parent = "L"+strconv.Itoa(num), prev
		case "messages":
			n.id, n.parent = "L"+strconv.Itoa(num), prev
		}
		prev = n.id
		nodes = append(nodes, n)
	}
	return nodes, metadata
}

// TestDialects_CountsMatchManifest: for every file, entries, metadata
// lines, roots, leaves, branch points and the active leaf counted from
// the file by the dialect's rules are the manifest's, ids are unique,
// and every parent is an entry of the file but the declared missing one.
func TestDialects_CountsMatchManifest(t *testing.T) {
	dir, m := mustMixed(t)
	seen := map[string]int{}
	for _, f := range m.Files {
		seen[f.Dialect]++
		if f.Subagent {
			seen["subagent"]++
		}
		if f.Damage != "" {
			seen[f.Dialect+" "+f.Damage]++
		}
		checkJSON(t, dir, f)
		nodes, meta := readDialect(t, dir, f)
		ids := map[string]bool{}
		kids := map[string]int{}
		var missing []int
		roots := 0
		for _, n := range nodes {
			if n.id == "" || ids[n.id] {
				t.Errorf("%s:%d: id %q empty or seen before", f.Path, n.line, n.id)
			}
			switch {
			case n.parent == "":
				roots++
			case !ids[n.parent]:
				missing = append(missing, n.line)
			default:
				kids[n.parent]++
			}
			ids[n.id] = true
		}
		leaves, branches, active := 0, 0, ""
		for _, n := range nodes {
			switch k := kids[n.id]; {
			case k == 0:
				leaves++
				if f.Dialect != "claude" || n.obj["isSidechain"] != true || f.Subagent {
					active = n.id
				}
			case k >= 2:
				branches++
			}
		}
		if f.Dialect != "claude" && len(nodes) > 0 {
			active = nodes[len(nodes)-1].id // the last entry (SPEC §3.2, §3.5, §3.6)
		}
		wantMissing := 0
		if f.Damage == DamageMissingParent {
			wantMissing = 1
		}
		if len(missing) != wantMissing || (wantMissing == 1 && missing[0] != f.DamageLine) {
			t.Errorf("%s (damage %q at %d): parents missing at lines %v", f.Path, f.Damage, f.DamageLine, missing)
		}
		if len(nodes) != f.Entries || meta != f.Metadata || roots != f.Roots || leaves != f.Leaves ||
			branches != f.BranchPoints || active != f.ActiveLeaf {
			t.Errorf("%s: counted entries %d metadata %d roots %d leaves %d branch points %d active %q; manifest %d %d %d %d %d %q",
				f.Path, len(nodes), meta, roots, leaves, branches, active,
				f.Entries, f.Metadata, f.Roots, f.Leaves, f.BranchPoints, f.ActiveLeaf)
		}
		if (f.Dialect == "codex" || f.Dialect == "messages") && (roots != min(1, len(nodes)) || branches != 0) {
			t.Errorf("%s: %d roots and %d branch points, want one chain", f.Path, roots, branches)
		}
	}
	for _, k := range []string{"pi", "plain", "claude", "codex", "messages", "subagent",
		"claude torn_tail", "claude bad_line", "claude missing_parent", "codex torn_tail", "codex bad_line",
		"messages torn_tail", "messages bad_line"} {
		if seen[k] == 0 {
			t.Errorf("no %s file in the mixed corpus (%v)", k, seen)
		}
	}
}

var (
	claudePath = regexp.MustCompile(`^claude/projects/([A-Za-z0-9-]+)/([0-9a-f-]{36})\.jsonl$`)
	agentPath  = regexp.MustCompile(`^claude/projects/([A-Za-z0-9-]+)/([0-9a-f-]{36})/subagents/(agent-[0-9a-f]{17})\.jsonl$`)
	codexName  = regexp.MustCompile(`^codex/sessions/(\d{4})/(\d\d)/(\d\d)/rollout-(\d{4})-(\d\d)-(\d\d)T\d\d-\d\d-\d\d-([0-9a-f-]{36})\.jsonl$`)
	notAlnum   = regexp.MustCompile(`[^A-Za-z0-9]`)
)

// TestDialects_Claude: Claude files follow FORMATS.md §1.12: the layout
// and sessionId, one line per content block sharing message.id, each
// tool_result under its own tool_use line with sourceToolAssistantUUID,
// compact_boundary roots followed by their isCompactSummary line, a
// file-history-snapshot naming the prompt after it, the name from the
// last custom-title, and sub-agent files linked both ways.
func TestDialects_Claude(t *testing.T) {
	dir, m := mustMixed(t)
	byPath := map[string]File{}
	for _, f := range m.Files {
		byPath[f.Path] = f
	}
	compactions, parallel, agentsLinked := 0, 0, 0
	for _, f := range m.Files {
		if f.Dialect != "claude" {
			continue
		}
		proj, stem := "", ""
		if f.Subagent {
			sm := agentPath.FindStringSubmatch(f.Path)
			if sm == nil || sm[3] != f.Session || path.Join(path.Dir(path.Dir(path.Dir(f.Path))), sm[2]+".jsonl") != f.Parent || sm[2] != f.ParentSession {
				t.Errorf("sub-agent %s: path does not match session %s, parent %s", f.Path, f.Session, f.Parent)
				continue
			}
			proj, stem = sm[1], sm[2]
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path[:len(f.Path)-len(".jsonl")]+".meta.json"))); err != nil {
				t.Errorf("sub-agent %s: %v", f.Path, err)
			}
		} else {
			sm := claudePath.FindStringSubmatch(f.Path)
			if sm == nil || sm[2] != f.Session {
				t.Errorf("%s: not projects/<dir>/<session>.jsonl for session %s", f.Path, f.Session)
				continue
			}
			proj, stem = sm[1], sm[2]
		}
		if want := notAlnum.ReplaceAllString(f.Workspace, "-"); proj != want {
			t.Errorf("%s: project folder %s, want %s for %q", f.Path, proj, want, f.Workspace)
		}
		nodes, _ := readDialect(t, dir, f)
		byID := map[string]xnode{}
		lines := mustLines(t, filepath.Join(dir, f.Path))
		name := ""
		for i, l := range lines[:len(lines)-1] {
			var o map[string]any
			if json.Unmarshal(l, &o) != nil {
				continue
			}
			if o["type"] == "custom-title" {
				name, _ = o["customTitle"].(string)
			}
			if o["type"] == "file-history-snapshot" {
				var next map[string]any
				if i+1 < len(lines)-1 && json.Unmarshal(lines[i+1], &next) == nil && next["uuid"] != nil && next["uuid"] != o["messageId"] {
					t.Errorf("%s:%d: snapshot for %v, the next line is %v", f.Path, i+1, o["messageId"], next["uuid"])
				}
			}
		}
		if name == "" && f.Subagent {
			name = subagentDescription // no title line: named by its meta.json
		}
		if name != f.Name {
			t.Errorf("%s: last custom-title %q, manifest name %q", f.Path, name, f.Name)
		}
		for k, n := range nodes {
			byID[n.id] = n
			o := n.obj
			if o["sessionId"] != stem || o["isSidechain"] != f.Subagent || o["cwd"] != f.Workspace {
				t.Errorf("%s:%d: sessionId %v isSidechain %v cwd %v", f.Path, n.line, o["sessionId"], o["isSidechain"], o["cwd"])
			}
			if f.Subagent && o["agentId"] != f.Session[len("agent-"):] {
				t.Errorf("%s:%d: agentId %v", f.Path, n.line, o["agentId"])
			}
			if o["subtype"] == "compact_boundary" {
				compactions++
				lp, _ := o["logicalParentUuid"].(string)
				if _, ok := byID[lp]; !ok || o["parentUuid"] != nil {
					t.Errorf("%s:%d: boundary with parentUuid %v, logicalParentUuid %q not an earlier entry", f.Path, n.line, o["parentUuid"], lp)
				}
				if k+1 < len(nodes) && (nodes[k+1].parent != n.id || nodes[k+1].obj["isCompactSummary"] != true) {
					t.Errorf("%s:%d: the entry after the boundary is no compact summary under it", f.Path, nodes[k+1].line)
				}
			}
			msg, _ := o["message"].(map[string]any)
			blocks, _ := msg["content"].([]any)
			if o["type"] == "assistant" && len(blocks) != 1 {
				t.Errorf("%s:%d: assistant line with %d blocks, want one", f.Path, n.line, len(blocks))
			}
			for _, b := range blocks {
				b := b.(map[string]any)
				if b["type"] != "tool_result" || (f.Damage == DamageMissingParent && n.line == f.DamageLine) {
					continue
				}
				p := byID[n.parent]
				pm, _ := p.obj["message"].(map[string]any)
				pb, _ := pm["content"].([]any)
				if len(pb) != 1 || pb[0].(map[string]any)["id"] != b["tool_use_id"] || o["sourceToolAssistantUUID"] != n.parent {
					t.Errorf("%s:%d: tool_result %v not under its tool_use line (parent %s)", f.Path, n.line, b["tool_use_id"], n.parent)
				}
				if k > 0 && nodes[k-1].id != n.parent {
					parallel++
				}
				if res, ok := o["toolUseResult"].(map[string]any); ok && res["agentId"] != nil {
					agent := "agent-" + res["agentId"].(string)
					// the session that ran the Task, or the one a fork copied it from
					af, ok := File{}, false
					for s := f; !ok; s = byPath[s.Parent] {
						af, ok = byPath[path.Join(path.Dir(s.Path), s.Session, "subagents", agent+".jsonl")]
						ok = ok && af.ParentSession == s.Session
						if !s.Forked {
							break
						}
					}
					if !ok {
						t.Errorf("%s:%d: Task result names %s, which is no sub-agent file of this session", f.Path, n.line, agent)
					}
					agentsLinked++
				}
			}
		}
	}
	if compactions == 0 || parallel == 0 || agentsLinked == 0 {
		t.Errorf("%d compactions, %d results of parallel calls, %d Task results naming a sub-agent: want some of each", compactions, parallel, agentsLinked)
	}
}

// TestDialects_Codex: rollouts follow FORMATS.md §2.9: the layout, a
// session_meta header with the session id and cwd, envelopes with
// timestamp/type/payload, every call answered by an output with its
// call_id, each prompt and answer followed by its event_msg copy, and a
// compacted item with replacement_history in some file.
func TestDialects_Codex(t *testing.T) {
	dir, m := mustMixed(t)
	compacted := 0
	for _, f := range m.Files {
		if f.Dialect != "codex" {
			continue
		}
		sm := codexName.FindStringSubmatch(f.Path)
		if sm == nil || sm[7] != f.Session || sm[1] != sm[4] || sm[2] != sm[5] || sm[3] != sm[6] {
			t.Errorf("%s: not a rollout path for session %s", f.Path, f.Session)
			continue
		}
		lines := mustLines(t, filepath.Join(dir, f.Path))
		var h struct {
			Type    string
			Payload struct{ ID, Cwd string }
		}
		if err := json.Unmarshal(lines[0], &h); err != nil || h.Type != "session_meta" || h.Payload.ID != f.Session || h.Payload.Cwd != f.Workspace {
			t.Errorf("%s: header %+v (%v)", f.Path, h, err)
		}
		nodes, _ := readDialect(t, dir, f)
		calls := map[string]int{}
		for k, n := range nodes {
			p, _ := n.obj["payload"].(map[string]any)
			if _, ok := n.obj["timestamp"].(string); !ok || p == nil {
				t.Errorf("%s:%d: no timestamp or payload", f.Path, n.line)
				continue
			}
			typ, _ := n.obj["type"].(string)
			switch pt := p["type"]; {
			case typ == "compacted":
				if h, ok := p["replacement_history"].([]any); !ok || len(h) == 0 {
					t.Errorf("%s:%d: compacted without replacement_history", f.Path, n.line)
				}
				compacted++
			case pt == "function_call" || pt == "custom_tool_call":
				calls[p["call_id"].(string)]++
				if pt == "function_call" && !json.Valid([]byte(p["arguments"].(string))) {
					t.Errorf("%s:%d: arguments are not a JSON string", f.Path, n.line)
				}
			case pt == "function_call_output" || pt == "custom_tool_call_output":
				if calls[p["call_id"].(string)]--; calls[p["call_id"].(string)] != 0 {
					t.Errorf("%s:%d: output for call %v, which is not waiting", f.Path, n.line, p["call_id"])
				}
			case typ == "response_item" && pt == "message" && p["role"] == "developer" || bytes.Contains(n.raw, []byte("<environment_context>")):
			case typ == "response_item" && pt == "message":
				want := "user_message"
				if p["role"] == "assistant" {
					want = "agent_message"
				}
				if k+1 < len(nodes) {
					np, _ := nodes[k+1].obj["payload"].(map[string]any)
					text := p["content"].([]any)[0].(map[string]any)["text"]
					if nodes[k+1].obj["type"] != "event_msg" || np["type"] != want || np["message"] != text {
						t.Errorf("%s:%d: no %s copy after the message", f.Path, n.line, want)
					}
				}
			}
		}
	}
	if compacted == 0 {
		t.Error("no compacted item in any rollout")
	}
}

// TestDialects_Messages: every entry of a messages log is {role, content}
// only, and every tool_result answers a tool_use of the line before.
func TestDialects_Messages(t *testing.T) {
	dir, m := mustMixed(t)
	for _, f := range m.Files {
		if f.Dialect != "messages" {
			continue
		}
		if f.Workspace != path.Dir(f.Path) || path.Base(f.Path) != f.Session+".jsonl" {
			t.Errorf("%s: workspace %q is not its folder", f.Path, f.Workspace)
		}
		nodes, _ := readDialect(t, dir, f)
		want := map[string]bool{}
		for _, n := range nodes {
			if _, ok := n.obj["role"].(string); !ok || len(n.obj) != 2 || n.obj["content"] == nil {
				t.Errorf("%s:%d: not a bare message: %.80s", f.Path, n.line, n.raw)
			}
			blocks, _ := n.obj["content"].([]any)
			next := map[string]bool{}
			for _, b := range blocks {
				b := b.(map[string]any)
				switch b["type"] {
				case "tool_use":
					next[b["id"].(string)] = true
				case "tool_result":
					if !want[b["tool_use_id"].(string)] {
						t.Errorf("%s:%d: tool_result %v answers no tool_use of the line before", f.Path, n.line, b["tool_use_id"])
					}
				}
			}
			want = next
		}
	}
}

// TestDialects_Markers: the manifest counts the entries that hold each
// marker word, the event_msg copies of Codex text excepted.
func TestDialects_Markers(t *testing.T) {
	dir, m := mustMixed(t)
	for _, f := range m.Files {
		var got [nMarkers]int
		nodes, _ := readDialect(t, dir, f)
		for _, n := range nodes {
			if f.Dialect == "codex" && n.obj["type"] == "event_msg" {
				continue
			}
			for i, w := range MarkerWords {
				if bytes.Contains(n.raw, []byte(w)) {
					got[i]++
				}
			}
		}
		if got != f.Markers {
			t.Errorf("%s: entries with markers %v, manifest says %v", f.Path, got, f.Markers)
		}
	}
}

// TestDialects_Deterministic: the mixed corpus is the same for one worker
// and three.
func TestDialects_Deterministic(t *testing.T) {
	a, b := dialectOptions, dialectOptions
	a.Size, b.Size = 3_000_000, 3_000_000
	a.Workers, b.Workers = 1, 3
	dirA, _ := mustGenerate(t, a)
	dirB, _ := mustGenerate(t, b)
	fa, fb := mustFiles(t, dirA), mustFiles(t, dirB)
	for name, want := range fa {
		if got, ok := fb[name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s differs between two runs (present: %v)", name, ok)
		}
	}
	if len(fa) != len(fb) {
		t.Errorf("%d files, then %d", len(fa), len(fb))
	}
}

func TestSetDialects(t *testing.T) {
	var o Options
	if err := o.SetDialects("pi=0.4,plain=0.1,claude=0.3,codex"); err != nil {
		t.Fatal(err)
	}
	if o.ClaudeShare != 0.3 || o.CodexShare < 0.199 || o.CodexShare > 0.201 || o.MessagesShare != 0 || o.PlainShare != 0.2 {
		t.Errorf("got %+v", o)
	}
	for _, bad := range []string{"", "pi=0.5", "vim", "claude=2", "claude=0.7,codex=0.7", "pi,pi"} {
		if err := o.SetDialects(bad); err == nil {
			t.Errorf("SetDialects(%q) = nil, want an error", bad)
		}
	}
}

// TestGenerate_Version2Bytes: with no claude, codex or messages share the
// session files are those generator version 2 wrote (the hash of every
// file's path, LF and bytes in path order, taken from version 2 with
// grove-corpus --size 2MB --big-session 300KB --plain-share 0.3
// --damage-rate 0.3 --fork-rate 0.3 --image-rate 0.1 --seed 4).
func TestGenerate_Version2Bytes(t *testing.T) {
	o := DefaultOptions()
	o.Seed, o.Size, o.BigSession = 4, 2_000_000, 300_000
	o.PlainShare, o.DamageRate, o.ForkRate, o.ImageRate = 0.3, 0.3, 0.3, 0.1
	dir, _ := mustGenerate(t, o)
	files := mustFiles(t, dir)
	delete(files, "manifest.json")
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n + "\n"))
		h.Write(files[n])
	}
	if got, want := hex.EncodeToString(h.Sum(nil)), "79455ccc7abf8024f7360b88acb33c1f4a945b58a4f7565a563b1851cf4de57f"; got != want {
		t.Errorf("pi and plain files hash to %s, version 2 wrote %s", got, want)
	}
}
