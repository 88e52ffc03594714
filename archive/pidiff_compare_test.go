package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// groveLeaf is grove's answer for one leaf: its context in pi's shape, or
// the error `grove context` gives there.
type groveLeaf struct {
	view piView
	err  error
}

// diffStats counts what checkAgainstPi compared.
type diffStats struct {
	compared  int // leaves compared with the reference
	differ    int // of them, leaves where grove and the reference disagree
	tolerated int // leaves with a v1/v2 hookMessage given as stored
	throws    int // leaves where the reference throws and grove fails too
	legacy    int // leaves 0.73.1 answers differently from grove
}

// checkAgainstPi is TestPiDifferential over the pi sessions under dir: cur
// is the reference, old (nil when it could not be installed) is compared
// as TestPiDifferential says, strictly when legacy is set.
func checkAgainstPi(t *testing.T, cur, old *piRunner, dir string, legacy bool) {
	ctx := context.Background()
	a, leaves := mustIndexLeaves(t, dir)
	work := t.TempDir()

	// A grove fork of every healthy pi leaf, with grove's context of the
	// source leaf (or its error, where pi must throw too).
	type fork struct {
		file, src, leaf string
		want            groveLeaf
	}
	var sources, forkFiles []string
	var forks []fork
	bySession := map[string][]archive.Leaf{}
	for _, l := range leaves {
		if l.Session.Dialect != "pi" {
			continue
		}
		src := l.Session.Path
		if _, ok := bySession[src]; !ok {
			sources = append(sources, src)
		}
		bySession[src] = append(bySession[src], l)
		if l.Depth == nil {
			continue // a broken path has no fork
		}
		p, path, labels, err := a.ExportPath(ctx, src, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := archive.ForkLines(p.Session, path, labels, fmt.Sprintf("fork-%d", len(forks)), time.Unix(1800000000, 0))
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(work, "forks", fmt.Sprint(len(forks)), "fork.jsonl")
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := archive.WriteFork(f, lines); err != nil {
			t.Fatalf("WriteFork(%s at %s): %v", filepath.Base(src), l.EntryID, err)
		}
		forks = append(forks, fork{file: f, src: src, leaf: l.EntryID, want: groveContext(t, a, src, l.EntryID, l.Session.Version < 3)})
		forkFiles = append(forkFiles, f)
	}
	if len(sources) == 0 {
		t.Fatalf("no pi session under %s", dir)
	}
	// Each release reads its own copies: pi rewrites a v1 or v2 file it
	// opens, and 1.6 appends a line feed to a file that lacks one.
	curCopies := copyAll(t, sources, filepath.Join(work, "current"))
	answers := cur.run(t, append(inOrder(curCopies, sources), forkFiles...))
	var oldCopies map[string]string
	var oldAnswers map[string]piAnswer
	if old != nil {
		oldCopies = copyAll(t, sources, filepath.Join(work, "legacy"))
		oldAnswers = old.run(t, inOrder(oldCopies, sources))
	}

	var st diffStats
	for _, src := range sources {
		name := filepath.Base(src)
		ans, ref := answers[curCopies[src]], cur.rel
		if ans.Error != "" {
			bom := bytes.HasPrefix(mustRead(t, src), []byte("\xef\xbb\xbf"))
			switch {
			case !bom:
				t.Errorf("%s cannot read %s: %s", cur.rel, name, ans.Error)
				continue
			case old == nil:
				t.Logf("%s: %s refuses a BOM before the header, and %s is not installed: not compared", name, cur.rel, piLegacy)
				continue
			}
			t.Logf("%s: %s refuses a BOM before the header (grove skips it, SPEC §2): compared with %s", name, cur.rel, old.rel)
			ans, ref = oldAnswers[oldCopies[src]], old.rel
			if ans.Error != "" {
				t.Errorf("%s cannot read %s: %s", old.rel, name, ans.Error)
				continue
			}
		}
		views := compareFile(t, a, src, bySession[src], ans, ref, &st)
		if old == nil || ref == old.rel {
			continue
		}
		differs := legacyDiffers(t, src, views, ans, oldAnswers[oldCopies[src]], legacy, &st)
		if !legacy && !differs && name != "bom.jsonl" {
			t.Errorf("%s: %s answers it as %s does: the fixture exercises no rule of pi 1.6", name, old.rel, cur.rel)
		}
	}
	for _, f := range forks {
		ans := answers[f.file]
		name := fmt.Sprintf("fork of %s at %s", filepath.Base(f.src), f.leaf)
		if ans.Error != "" {
			t.Errorf("%s: %s cannot read it: %s", name, cur.rel, ans.Error)
			continue
		}
		lines := bytes.Count(mustRead(t, f.file), []byte("\n"))
		if len(ans.Entries) != lines-1 {
			t.Errorf("%s: pi reads %d entries of its %d lines after the header", name, len(ans.Entries), lines-1)
		}
		found := false
		for _, x := range ans.Leaves {
			if x.ID != ans.Active {
				continue
			}
			found = true
			switch {
			case x.Error != "" && f.want.err == nil:
				t.Errorf("%s: pi throws (%s), grove's source leaf has a context", name, x.Error)
			case x.Error == "" && f.want.err != nil:
				t.Errorf("%s: grove's source leaf fails (%v), pi reads the fork's context", name, f.want.err)
			case x.Error == "":
				diffView(t, name, f.want.view, decodeView(t, x.Context.Messages, x.Context.ThinkingLevel, x.Context.Model, x.LLM))
			}
		}
		if !found {
			t.Errorf("%s: pi gives no active leaf (%q)", name, ans.Active)
		}
	}
	t.Logf("%s: %d sessions, %d leaves compared with pi (%d differ; %d where pi throws and grove fails; %d with a v1/v2 hookMessage given as stored), %d forks read back by %s; %d leaves answered otherwise by %s",
		t.Name(), len(sources), st.compared, st.differ, st.throws, st.tolerated, len(forks), cur.rel, st.legacy, piLegacy)
}

// compareFile compares grove's answers for the session src (its leaves
// ls) with pi's, ans, given by release ref, and returns grove's answer for
// each leaf compared, by leaf id.
func compareFile(t *testing.T, a *archive.Archive, src string, ls []archive.Leaf, ans piAnswer, ref piRelease, st *diffStats) map[string]groveLeaf {
	t.Helper()
	ctx := context.Background()
	name := filepath.Base(src)
	s, err := archive.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	toGrove, ok := pairEntries(t, s, ans, ref)
	if !ok {
		return nil
	}
	var groveLeaves, piLeaves []string
	for _, l := range ls {
		groveLeaves = append(groveLeaves, l.EntryID)
	}
	for _, pl := range ans.Leaves {
		piLeaves = append(piLeaves, toGrove[pl.ID])
	}
	sort.Strings(groveLeaves)
	sort.Strings(piLeaves)
	if !reflect.DeepEqual(groveLeaves, piLeaves) {
		t.Errorf("%s: leaves %v in grove, %v in %s", name, groveLeaves, piLeaves, ref)
	}
	if got := toGrove[ans.Active]; s.Header != nil && len(s.Entries) > 0 && got != archive.ActiveLeaf(s.Dialect, s.Entries) {
		t.Errorf("%s: active leaf %s in grove, %s in %s", name, archive.ActiveLeaf(s.Dialect, s.Entries), got, ref)
	}
	if ls[0].Session.Name != ans.Name {
		t.Errorf("%s: session name %q in grove, %q in %s's getSessionName", name, ls[0].Session.Name, ans.Name, ref)
	}
	out := map[string]groveLeaf{}
	for _, l := range ls {
		if l.Depth == nil {
			t.Logf("%s at %s: the path is broken in grove (an error), pi answers a partial path; not compared", name, l.EntryID)
			continue
		}
		x := leafOf(ans, toGrove, l.EntryID)
		if x == nil {
			continue // reported with the leaves
		}
		st.compared++
		what := fmt.Sprintf("%s at %s", name, l.EntryID)
		p, err := a.Path(ctx, src, l.EntryID)
		if err != nil {
			t.Fatal(err)
		}
		var grovePath, piPath []string
		for _, e := range p.Entries {
			grovePath = append(grovePath, e.EntryID)
		}
		for _, id := range x.Path {
			piPath = append(piPath, toGrove[id])
		}
		if !reflect.DeepEqual(grovePath, piPath) {
			t.Errorf("%s: path %v in grove, %v in %s", what, grovePath, piPath, ref)
		}
		g := groveContext(t, a, src, l.EntryID, l.Session.Version < 3)
		out[l.EntryID] = g
		switch {
		case x.Error != "":
			var je *errs.Error
			if !errors.As(g.err, &je) || je.Code != errs.CodeBadLine {
				st.differ++
				t.Errorf("%s: %s throws (%s); grove's context gives %v, want a bad_line error", what, ref, x.Error, g.err)
				continue
			}
			st.throws++
		case g.err != nil:
			st.differ++
			t.Errorf("%s: grove's context fails (%v); %s gives one", what, g.err, ref)
		default:
			if raw := groveContext(t, a, src, l.EntryID, false); !reflect.DeepEqual(raw.view.Messages, g.view.Messages) {
				st.tolerated++
			}
			if !diffView(t, what+" ("+ref.Version+")", g.view, decodeView(t, x.Context.Messages, x.Context.ThinkingLevel, x.Context.Model, x.LLM)) {
				st.differ++
			}
		}
	}
	return out
}

// legacyDiffers reports whether piLegacy's answers old for the session
// src differ from piCurrent's, cur: it cannot read the file, or some
// leaf's context (or failure) is not the same. With strict, every leaf
// where old differs from grove's answer (views, compareFile's) is a test
// error.
func legacyDiffers(t *testing.T, src string, views map[string]groveLeaf, cur, old piAnswer, strict bool, st *diffStats) bool {
	t.Helper()
	name := filepath.Base(src)
	if old.Error != "" {
		if strict {
			t.Errorf("%s cannot read %s: %s", piLegacy, name, old.Error)
		}
		return true
	}
	s, err := archive.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	oldViews, ok := piViews(t, s, old, piLegacy)
	if !ok {
		return true
	}
	curViews, _ := piViews(t, s, cur, piCurrent)
	differs := false
	for id, o := range oldViews {
		if !sameLeaf(o, curViews[id]) {
			differs = true
		}
		g, ok := views[id]
		if !ok || sameLeaf(o, g) {
			continue
		}
		st.legacy++
		if !strict {
			continue
		}
		if o.err == nil && g.err == nil {
			diffView(t, fmt.Sprintf("%s at %s (%s)", name, id, piLegacy.Version), g.view, o.view)
		} else {
			t.Errorf("%s at %s: %s throws %v, grove's context fails with %v", name, id, piLegacy, o.err, g.err)
		}
	}
	return differs
}

// piViews is pi's answers ans for the session s as groveLeaf values by
// grove's leaf ids; false (reported) when the entries do not pair.
func piViews(t *testing.T, s *archive.File, ans piAnswer, rel piRelease) (map[string]groveLeaf, bool) {
	t.Helper()
	toGrove, ok := pairEntries(t, s, ans, rel)
	if !ok {
		return nil, false
	}
	out := map[string]groveLeaf{}
	for _, x := range ans.Leaves {
		if x.Error != "" {
			out[toGrove[x.ID]] = groveLeaf{err: errors.New(x.Error)}
		} else {
			out[toGrove[x.ID]] = groveLeaf{view: decodeView(t, x.Context.Messages, x.Context.ThinkingLevel, x.Context.Model, x.LLM)}
		}
	}
	return out, true
}

// sameLeaf reports whether a and b are the same context, or both fail.
func sameLeaf(a, b groveLeaf) bool {
	if a.err != nil || b.err != nil {
		return a.err != nil && b.err != nil
	}
	return reflect.DeepEqual(a.view, b.view)
}

// pairEntries maps pi's entry ids in ans to grove's for the session s:
// they are the same except in version 1, where pi makes random ones, so
// entries pair up by file order. false (reported) when they do not pair.
func pairEntries(t *testing.T, s *archive.File, ans piAnswer, ref piRelease) (map[string]string, bool) {
	t.Helper()
	name := filepath.Base(s.Path)
	if len(s.Entries) != len(ans.Entries) {
		t.Errorf("%s: grove reads %d entries, %s %d", name, len(s.Entries), ref, len(ans.Entries))
		return nil, false
	}
	toGrove := map[string]string{}
	for i, e := range s.Entries {
		if ans.Entries[i].Type != e.Type || (ans.Version >= 2 && ans.Entries[i].ID != e.ID) {
			t.Errorf("%s: entry %d is %s %s in grove, %s %s in %s", name, i+1, e.Type, e.ID, ans.Entries[i].Type, ans.Entries[i].ID, ref)
		}
		toGrove[ans.Entries[i].ID] = e.ID
	}
	return toGrove, true
}

// leafOf is pi's answer for grove's leaf id, or nil.
func leafOf(ans piAnswer, toGrove map[string]string, id string) *piLeaf {
	for i := range ans.Leaves {
		if toGrove[ans.Leaves[i].ID] == id {
			return &ans.Leaves[i]
		}
	}
	return nil
}

// copyAll copies each of srcs into its own folder under dir and returns
// the copies by source path.
func copyAll(t *testing.T, srcs []string, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, src := range srcs {
		out[src] = testutil.MustCopy(t, src, filepath.Join(dir, fmt.Sprint(i)), filepath.Base(src))
	}
	return out
}

// inOrder is m's values for keys, in that order.
func inOrder(m map[string]string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// groveContext is grove's context of leaf in session (by the index, as
// `grove context` answers) in pi's shape, or its error; hookAsCustom gives
// a hookMessage role as "custom", as pi's migration of a version 1 or 2
// file does.
func groveContext(t *testing.T, a *archive.Archive, session, leaf string, hookAsCustom bool) groveLeaf {
	t.Helper()
	_, c, err := a.Context(context.Background(), session, leaf)
	if err != nil {
		return groveLeaf{err: err}
	}
	msgs, _ := json.Marshal(c.Messages)
	llm, _ := json.Marshal(c.ForLLM().Messages)
	model := json.RawMessage("null")
	if c.Model != nil {
		model, _ = json.Marshal(c.Model)
	}
	v := decodeView(t, msgs, c.ThinkingLevel, model, llm)
	if hookAsCustom {
		for _, m := range v.Messages.([]any) {
			if o, ok := m.(map[string]any); ok && o["role"] == "hookMessage" {
				o["role"] = "custom"
			}
		}
	}
	return groveLeaf{view: v}
}
