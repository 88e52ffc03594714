package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestKept_RewriteSearchesEarlierVersion: a pi file and a Claude Code file of
// the real corpora are indexed, then rewritten to their first half with a
// line of new text (as pi's branch delete rewrites a file); after the next
// `grove index`, search finds text only the old content had in the file's
// earlier version (FILE@v1) and no more in the current one, and the hits
// open (grove messages) byte for byte as they did before the rewrite
// (SPEC §11, docs/keeping.md).
func TestKept_RewriteSearchesEarlierVersion(t *testing.T) {
	root, files := keptCorpus(t)
	var picked []string
	for _, agent := range []string{"pi", "claude"} {
		best, size := "", int64(0)
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			if !strings.HasPrefix(rel, agent+string(filepath.Separator)) {
				continue
			}
			if fi, err := os.Stat(f); err == nil && fi.Size() > size {
				best, size = f, fi.Size()
			}
		}
		if best == "" {
			t.Skipf("skipping: no %s session file in ../shared/corpus", agent)
		}
		picked = append(picked, best)
	}
	db := filepath.Join(t.TempDir(), "index", "index.db")
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index: exit %d\n%s", code, e)
	}
	type found struct {
		word     string
		ids      []string
		messages map[string]string // grove messages FILE ID, by ID
	}
	olds := map[string]found{}
	for _, f := range picked {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		half := bytes.Join(lines[:len(lines)/2], nil)
		rest := bytes.Join(lines[len(lines)/2:], nil)
		word := ""
		var ids []string
		for _, w := range oldWords(half, rest) {
			if ids = hitIDs(t, db, f, w); len(ids) > 0 {
				word = w
				break
			}
		}
		if word == "" {
			t.Fatalf("%s: no word of its second half that only the second half has is found by grove search", f)
		}
		msgs := map[string]string{}
		for _, id := range ids {
			code, o, e := keptRun(t, nil, "--db", db, "messages", f, id)
			msgs[id] = strings.Join([]string{string(rune('0' + code)), o, e}, "\x00")
		}
		olds[f] = found{word: word, ids: ids, messages: msgs}
		// The rewrite: the first half and a line of new text.
		if err := os.WriteFile(f, append(half, lines[0]...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, e := keptRun(t, nil, "--db", db, "index", "--root", root); code != 0 {
		t.Fatalf("grove index after the rewrite: exit %d\n%s", code, e)
	}
	states := sessionStates(t, db)
	for _, f := range picked {
		old, v1 := olds[f], f+"@v1"
		if states[v1] != "earlier" {
			t.Errorf("%s: grove sessions lists its earlier version with state %q, want earlier", f, states[v1])
		}
		if ids := hitIDs(t, db, f, old.word); len(ids) != 0 {
			t.Errorf("%s: search %q still finds %v in the rewritten file", f, old.word, ids)
		}
		ids := hitIDs(t, db, v1, old.word)
		if strings.Join(ids, " ") != strings.Join(old.ids, " ") {
			t.Errorf("%s: search %q finds %v in the earlier version, want %v as before the rewrite", f, old.word, ids, old.ids)
		}
		for _, id := range old.ids {
			code, o, e := keptRun(t, nil, "--db", db, "messages", v1, id)
			if got := strings.Join([]string{string(rune('0' + code)), o, e}, "\x00"); got != old.messages[id] {
				t.Errorf("%s: grove messages %s %s answers\n%.600q\nwant, as before the rewrite,\n%.600q", f, v1, id, got, old.messages[id])
			}
		}
	}
}

// oldWords are up to 40 words (8 letters or more) of rest that half does
// not hold, in rest's order.
func oldWords(half, rest []byte) []string {
	lower := bytes.ToLower(half)
	seen := map[string]bool{}
	var out []string
	for _, w := range regexp.MustCompile(`[A-Za-z]{8,}`).FindAll(rest, -1) {
		k := strings.ToLower(string(w))
		if seen[k] || bytes.Contains(lower, []byte(k)) {
			continue
		}
		seen[k] = true
		if out = append(out, k); len(out) == 40 {
			break
		}
	}
	return out
}

// hitIDs is the entry ids of `grove search --json` for word in the session
// stored at path (every fork copy its own hit), in the answer's order.
func hitIDs(t *testing.T, db, path, word string) []string {
	t.Helper()
	code, o, e := keptRun(t, nil, "--db", db, "search", "--json", "--no-dedupe", "--limit", "1000", "--session", path, word)
	if code != 0 {
		t.Fatalf("grove search --session %s %s: exit %d\n%s", path, word, code, e)
	}
	var out struct {
		Hits []struct {
			ID string `json:"id"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(o), &out); err != nil {
		t.Fatalf("grove search --json: %v\n%s", err, o)
	}
	var ids []string
	for _, h := range out.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}
