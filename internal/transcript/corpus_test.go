package transcript

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

// TestRender_LargeCorpusSession renders a real pi v1 session (about a
// thousand entries, tool calls, edits with diffs, aborted turns) to its last
// entry in both formats.
func TestRender_LargeCorpusSession(t *testing.T) {
	p := testutil.MustShared(t, "corpus/pi/large-session.jsonl") // skips when ../shared is absent
	d := mustDoc(t, p, "corpus/pi/large-session.jsonl", "")
	md, page := render(t, d)
	if len(d.Entries) < 1000 {
		t.Errorf("path to the last entry has %d entries, want the whole linear session (over 1,000)", len(d.Entries))
	}
	for _, tc := range []struct{ name, out, want string }{
		{"Markdown", md, "### Tool result `edit`"},
		{"Markdown", md, "```diff\n"},
		{"Markdown", md, "**⚠ Aborted:**"},
		{"HTML", page, `<span class="add">`},
	} {
		if !strings.Contains(tc.out, tc.want) {
			t.Errorf("%s(large-session) lacks %q", tc.name, tc.want)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Errorf("HTML(large-session) contains <script")
	}
}

// TestRender_CorpusDialects renders every session file of the messages,
// claude and codex corpora in both formats: the path to the file's last
// entry, and every entry of the file in file order (so branches, sidechains
// and the entries before a compaction are rendered too). Neither may
// fail, and no page may hold a script element. It skips when ../shared is
// absent.
func TestRender_CorpusDialects(t *testing.T) {
	for _, dialect := range []string{"messages", "claude", "codex"} {
		root := testutil.MustShared(t, "corpus/"+dialect)
		var files []string
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err == nil && !de.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("corpus/%s holds no .jsonl file", dialect)
		}
		for _, p := range files {
			rel, _ := filepath.Rel(root, p)
			t.Run(dialect+"/"+rel, func(t *testing.T) {
				entries, res, err := jsonl.ReadFile(p, jsonl.Salvage)
				if err != nil {
					t.Fatalf("jsonl.ReadFile(%s): %v", p, err)
				}
				if string(res.Dialect) != dialect {
					t.Fatalf("jsonl.ReadFile(%s) read dialect %q, want %q", p, res.Dialect, dialect)
				}
				if len(entries) == 0 {
					t.Skipf("%s has no entries", rel)
				}
				all := Doc{SessionID: rel, Path: rel, Dialect: dialect, Leaf: "(every entry)"}
				for _, e := range entries {
					te := Entry{ID: e.ID, Type: e.Type, Role: e.Role, Raw: e.Raw}
					if e.HasTime {
						ms := e.Timestamp
						te.TimestampMs = &ms
					}
					all.Entries = append(all.Entries, te)
				}
				for _, d := range []Doc{mustDoc(t, p, rel, ""), all} {
					md, page := render(t, d)
					if !strings.Contains(md, "- **Dialect:** "+dialect+"\n") {
						t.Errorf("Markdown(%s) does not name the dialect %s in its header", rel, dialect)
					}
					if strings.Contains(strings.ToLower(page), "<script") {
						t.Errorf("HTML(%s) contains <script", rel)
					}
					for _, secret := range []string{"SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER", "REDACTED_ENCRYPTED_CONTENT"} {
						if strings.Contains(md, secret) || strings.Contains(page, secret) {
							t.Errorf("%s: a transcript shows encrypted content (%s)", rel, secret)
						}
					}
				}
			})
		}
	}
}
