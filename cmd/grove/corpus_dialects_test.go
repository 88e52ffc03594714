package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// TestCorpusEveryCommand runs the whole command line over the real Claude
// Code, Codex and messages-log files in ../shared/corpus (SPEC §3.4-§3.6;
// skipped with a message when the corpus is absent): index reads every
// file with nothing failed, each is listed with its dialect, sub-agents
// under their parent; and for every session leaves, branches, tree, path,
// messages, search, export md and html and verify answer (exit 0), while
// export --format jsonl of a claude or codex session is wrong_dialect.
func TestCorpusEveryCommand(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "every command over every session of the shared corpus")
	roots := map[string]string{
		"claude":   testutil.MustShared(t, "corpus/claude/projects"),
		"codex":    testutil.MustShared(t, "corpus/codex/sessions"),
		"messages": testutil.MustShared(t, "corpus/messages"),
	}
	want := map[string]string{} // file (real path, as the index keeps it) -> dialect
	for d, root := range roots {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
			roots[d] = real
		}
		filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
				want[p] = d
			}
			return nil
		})
	}
	dir := t.TempDir()
	grove := groveOn(t, filepath.Join(dir, "index.db"))
	mustJSON := func(v any, args ...string) {
		t.Helper()
		code, out, errOut := grove(append([]string{"--json"}, args...)...)
		if code != 0 {
			t.Fatalf("grove %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("grove %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	var sum struct {
		Files, Indexed int
		Failed         []any
	}
	mustJSON(&sum, "index", "--root", roots["claude"], "--root", roots["codex"], "--root", roots["messages"])
	if sum.Files != len(want) || sum.Indexed != len(want) || len(sum.Failed) != 0 {
		t.Fatalf("index: %d files, %d indexed, failed %v; want %d files", sum.Files, sum.Indexed, sum.Failed, len(want))
	}

	type session struct {
		ID, Path, Dialect, Workspace, Name, State string
		FirstMessage                              *string `json:"first_message"`
		ParentSession                             string  `json:"parent_session"`
		Entries, Leaves                           int
	}
	var list struct{ Sessions []session }
	mustJSON(&list, "sessions")
	if len(list.Sessions) != len(want) {
		t.Fatalf("sessions: %d listed, want %d", len(list.Sessions), len(want))
	}
	byID := map[string]int{}
	for _, s := range list.Sessions {
		byID[s.ID]++
	}
	for _, s := range list.Sessions {
		if d := want[s.Path]; s.Dialect != d {
			t.Errorf("%s: dialect %q, want %q", s.Path, s.Dialect, d)
		}
		if s.Entries == 0 || s.Leaves == 0 {
			t.Errorf("%s: %d entries, %d leaves", s.Path, s.Entries, s.Leaves)
		}
		if base := filepath.Base(s.Path); s.Dialect == "claude" && strings.HasPrefix(base, "agent-") {
			if s.ParentSession == "" || byID[s.ParentSession] == 0 {
				t.Errorf("%s: sub-agent with parent_session %q, want a listed session", s.Path, s.ParentSession)
			}
		}
	}
	// Sub-agents right under their parent in the table, marked.
	_, table, _ := grove("sessions")
	lines := strings.Split(table, "\n")
	for i, l := range lines {
		if strings.Contains(l, "/agent-") && strings.Contains(l, "claude") {
			if !strings.HasPrefix(l, "└ sub-agent ") {
				t.Errorf("sessions: sub-agent row not marked: %q", l)
			}
			if i == 0 || !(strings.HasPrefix(lines[i-1], "└ sub-agent ") || strings.Contains(lines[i-1], "claude")) {
				t.Errorf("sessions: sub-agent row not under a claude session: %q after %q", l, lines[i-1])
			}
		}
	}

	word := regexp.MustCompile(`[A-Za-z]{5,}`)
	searched := map[string]int{} // dialect -> sessions searched for a word of their first message
	for _, s := range list.Sessions {
		t.Run(s.Dialect+"/"+filepath.Base(s.Path), func(t *testing.T) {
			for _, args := range [][]string{
				{"leaves", "--session", s.Path},
				{"branches", "--session", s.Path},
				{"tree", s.Path},
				{"path", s.Path},
				{"messages", s.Path},
				{"verify", "--session", s.Path},
				{"export", "--format", "md", "--out", filepath.Join(dir, s.Dialect+"-"+filepath.Base(s.Path)+".md"), s.Path},
				{"export", "--format", "html", "--out", filepath.Join(dir, s.Dialect+"-"+filepath.Base(s.Path)+".html"), s.Path},
			} {
				for _, j := range []bool{false, true} {
					a := args
					if j {
						a = append([]string{"--json"}, args...)
					}
					if j && args[0] == "export" {
						continue // the --out file is there: once is enough
					}
					if code, out, errOut := grove(a...); code != 0 {
						t.Errorf("grove %s: exit %d\n%.2000s%.2000s", strings.Join(a, " "), code, out, errOut)
					}
				}
			}
			var leaves struct{ Leaves []struct{ Active bool } }
			mustJSON(&leaves, "leaves", "--session", s.Path)
			active := 0
			for _, l := range leaves.Leaves {
				if l.Active {
					active++
				}
			}
			if len(leaves.Leaves) != s.Leaves || active != 1 {
				t.Errorf("leaves: %d (sessions says %d), %d active", len(leaves.Leaves), s.Leaves, active)
			}
			var path struct{ Path []string }
			mustJSON(&path, "path", s.Path)
			if len(path.Path) == 0 {
				t.Errorf("path: empty")
			}
			// A word of the first message is found in the session.
			if s.FirstMessage != nil {
				if w := word.FindString(*s.FirstMessage); w != "" {
					var res struct{ Total int }
					mustJSON(&res, "search", "--session", s.Path, "--dialect", s.Dialect, w)
					if res.Total == 0 {
						t.Errorf("search %q in its first message %q: no hit", w, *s.FirstMessage)
					}
					searched[s.Dialect]++
				}
			}
			if s.Dialect == "claude" || s.Dialect == "codex" {
				code, out, _ := grove("--json", "export", "--format", "jsonl", s.Path)
				if code != 1 || !strings.Contains(out, `"wrong_dialect"`) {
					t.Errorf("export --format jsonl: exit %d, %s; want wrong_dialect", code, out)
				}
			}
		})
	}

	for _, d := range []string{"claude", "codex", "messages"} {
		if searched[d] == 0 {
			t.Errorf("no %s session has a first message with a word to search for", d)
		}
	}

	// Every dialect filter finds its sessions, and workspaces too.
	for _, d := range []string{"claude", "codex", "messages"} {
		var l struct{ Sessions []session }
		mustJSON(&l, "sessions", "--dialect", d)
		n := 0
		for _, dd := range want {
			if dd == d {
				n++
			}
		}
		if len(l.Sessions) != n {
			t.Errorf("sessions --dialect %s: %d, want %d", d, len(l.Sessions), n)
		}
		var ws struct{ Workspaces []any }
		mustJSON(&ws, "workspaces", "--dialect", d)
		if len(ws.Workspaces) == 0 {
			t.Errorf("workspaces --dialect %s: none", d)
		}
	}
	// A messages log by path needs no index.
	other := groveOn(t, filepath.Join(dir, "none", "index.db"))
	for p, d := range want {
		if d != "messages" {
			continue
		}
		if code, out, errOut := other("--json", "messages", p); code != 0 || !strings.Contains(out, `"messages":[{`) {
			t.Errorf("messages %s with no index: exit %d\n%s%s", p, code, out, errOut)
		}
	}
}
