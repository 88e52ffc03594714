package transcript

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
	"github.com/grove-sessions/grove/jsonl"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// mustDoc reads the session file at path (salvaging bad lines) and returns
// the path to leaf as a Doc, the way grove export builds it: labels and the
// session name from the whole file (the last one wins), entries root first.
// An empty leaf means the active leaf (the last entry). rel is the file name
// the Doc carries, so goldens do not depend on where the repo is.
func mustDoc(tb testing.TB, path, rel, leaf string) Doc {
	tb.Helper()
	entries, res, err := jsonl.ReadFile(path, jsonl.Salvage)
	if err != nil {
		tb.Fatalf("jsonl.ReadFile(%q): %v", path, err)
	}
	d := Doc{Path: rel, Dialect: string(res.Dialect)}
	if h := res.Header; h != nil {
		d.SessionID, d.Workspace, d.Version = h.ID, h.Cwd, h.Version
	} else {
		d.SessionID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	if res.Claude != nil && res.Claude.CustomTitle != nil {
		d.Name = *res.Claude.CustomTitle
	}
	if d.Dialect == "messages" {
		d.Workspace = filepath.Dir(rel) // SPEC §3.6: the folder that holds the file
	}
	byID := map[string]jsonl.Entry{}
	labels := map[string]string{}
	for _, e := range entries {
		byID[e.ID] = e
		switch {
		case e.Type == "session_info":
			d.Name = e.Name
		case e.Type == "label" && e.Label == "":
			delete(labels, e.TargetID)
		case e.Type == "label":
			labels[e.TargetID] = e.Label
		case e.Type == "metadata" && e.Key == "cwd":
			d.Workspace = e.Value
		case d.Dialect == "claude" && d.Workspace == "" && e.Cwd != "":
			d.Workspace = e.Cwd // SPEC §3.4: the first cwd
		}
	}
	if leaf == "" {
		leaf = entries[len(entries)-1].ID
	}
	d.Leaf = leaf
	var rev []Entry
	for id, seen := leaf, map[string]bool{}; ; {
		e, ok := byID[id]
		if !ok || seen[id] {
			tb.Fatalf("%s: no path to %q (at %q)", path, leaf, id)
		}
		seen[id] = true
		te := Entry{ID: e.ID, Type: e.Type, Role: e.Role, Label: labels[e.ID], FirstKept: e.FirstKept, Raw: e.Raw}
		if e.HasTime {
			ms := e.Timestamp
			te.TimestampMs = &ms
		}
		rev = append(rev, te)
		if e.Root {
			break
		}
		id = e.ParentID
	}
	for i := len(rev) - 1; i >= 0; i-- {
		d.Entries = append(d.Entries, rev[i])
	}
	return d
}

// render returns d in both formats.
func render(tb testing.TB, d Doc) (md, page string) {
	tb.Helper()
	var m, h bytes.Buffer
	if err := Markdown(&m, d); err != nil {
		tb.Fatalf("Markdown(%s) = %v, want nil", d.Leaf, err)
	}
	if err := HTML(&h, d); err != nil {
		tb.Fatalf("HTML(%s) = %v, want nil", d.Leaf, err)
	}
	return m.String(), h.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(tb testing.TB, name, got string) {
	tb.Helper()
	testutil.MustMatchGolden(tb, filepath.Join("testdata", name), got, *update)
}
