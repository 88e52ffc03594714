package archive

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/plural"
	"github.com/grove-sessions/grove/jsonl"
)

// Problem is one finding of Verify.
type Problem struct {
	Session string    `json:"session"`
	Path    string    `json:"path"`
	Leaf    string    `json:"leaf,omitempty"`
	Code    errs.Code `json:"code"` // stale_index, mismatch, or duplicate_id
	Message string    `json:"message"`
	ID      string    `json:"id,omitempty"`    // duplicate_id: the duplicated id
	Lines   []int     `json:"lines,omitempty"` // duplicate_id: every line that holds it
	Index   []string  `json:"index,omitempty"` // the CTE's answer: path ids, or the error code
	File    []string  `json:"file,omitempty"`  // PathTo's answer over the file
}

// VerifyReport is the answer of `grove verify` (SPEC §8). Duplicates
// counts the duplicate_id problems: damage in the files that the index
// records rightly, which is no failure of the index.
type VerifyReport struct {
	Sessions   int `json:"sessions"`
	Leaves     int `json:"leaves"`
	Mismatches int `json:"mismatches"`
	Stale      int `json:"stale"`
	// Damaged counts the gone sessions whose kept copy is damaged on disk
	// (kept.ErrCorrupt): an io_error problem each, which grove index
	// cannot mend (docs/keeping.md). Left out of the JSON when 0.
	Damaged int `json:"damaged,omitempty"`
	// TextPending counts the sessions whose search text is not in the
	// index (a first index still building it, or stopped before it was
	// done): search finds none of their entries until `grove index` runs.
	// A problem of verify; left out of the JSON when 0.
	TextPending int       `json:"text_pending,omitempty"`
	Problems    []Problem `json:"problems"`
	Duplicates  int       `json:"-"`
	// KeptOnly are the files of the sessions that only the kept store (in
	// PostgreSQL, the index's stored bytes) still holds: their files are
	// gone (SPEC §11). Deleting the kept store would lose them.
	KeptOnly []string `json:"kept_only,omitempty"`
}

// Verify checks every leaf's path both ways, by recursive CTE over the
// index and by PathTo over the file, and reports every difference in path
// or error (code and id), plus every file that changed since it was indexed:
// a different size, mtime or inode, or any entry whose id, parent, line,
// offset or CRC-32 differs. It also reports every duplicated id of a file
// with all its lines (SPEC §4 rule 1, §6), and a mismatch when the index's
// duplicate_id diagnostics do not name exactly those, or its active marks
// are not the path to the file's active leaf. The work is linear in the
// entries: a leaf's CTE answer is right iff the edges, the runs the walk
// steps over, the entry count and the duplicated id are, so those are
// compared once per session and one leaf is walked both ways; a session
// where they differ (or without runs, indexed before migration 8) has
// every leaf walked both ways, as each wrong answer is reported. session "" verifies
// every session. Before any of it, the whole index file is checked
// (index.DB.QuickCheck): a damaged page anywhere is a damaged_index error,
// whose hint names `grove rebuild`.
func (a *Archive) Verify(ctx context.Context, session string) (*VerifyReport, error) {
	return a.VerifyDialect(ctx, session, "")
}

// VerifyDialect is Verify of the sessions of dialect d only ("" for all),
// `grove verify --dialect` (SPEC §3).
func (a *Archive) VerifyDialect(ctx context.Context, session, d string) (*VerifyReport, error) {
	// The file itself first: a damaged page that no path reads (the
	// full-text pages) would otherwise leave verify clean.
	if err := a.db().QuickCheck(ctx); err != nil {
		return nil, err
	}
	var sessions []index.Session
	if session != "" {
		s, err := a.resolve(ctx, session)
		if err != nil {
			return nil, err
		}
		if d == "" || s.Dialect == d {
			sessions = []index.Session{*s}
		}
	} else {
		var err error
		if sessions, err = a.db().Sessions(ctx, index.SessionFilter{Dialect: d}); err != nil {
			return nil, err
		}
	}
	rep := &VerifyReport{Sessions: len(sessions), Problems: []Problem{}}
	if pending, err := a.db().TextPending(ctx); err != nil {
		return nil, err
	} else if pending {
		rep.TextPending = len(sessions)
	}
	for i := range sessions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := a.verifySession(ctx, &sessions[i], rep); err != nil {
			return nil, err
		}
		if sessions[i].Gone {
			rep.KeptOnly = append(rep.KeptOnly, sessions[i].Path)
		}
	}
	return rep, nil
}

func (a *Archive) verifySession(ctx context.Context, s *index.Session, rep *VerifyReport) error {
	stale := func(msg string) {
		rep.Stale++
		rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Code: errs.CodeStaleIndex, Message: msg})
	}
	if err := a.fresh(s); err != nil {
		stale(err.(*errs.Error).Message)
		return nil
	}
	file, err := a.loadEntries(s)
	if err != nil && errors.Is(err, kept.ErrCorrupt) {
		rep.Damaged++
		rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Code: errs.CodeIO, Message: "the kept copy of this gone session is damaged: " + err.Error()})
		return nil
	}
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) {
			stale(je.Message)
		} else {
			stale(err.Error())
		}
		return nil
	}
	rows, err := a.db().EntriesOf(ctx, s.SID)
	if err != nil {
		return err
	}
	if msg := sameEntries(rows, file.Entries); msg != "" {
		stale(msg)
		return nil
	}
	if err := a.verifyDuplicates(ctx, s, file.Entries, rep); err != nil {
		return err
	}
	leaves := Leaves(file.Entries)
	rep.Leaves += len(leaves)
	edges := make([]index.Entry, len(file.Entries))
	for i, e := range file.Entries {
		edges[i] = index.Entry{Seq: i, EntryID: e.ID, Side: e.Sidechain}
		if !e.Root {
			edges[i].ParentID = &file.Entries[i].ParentID
		}
	}
	stored, err := a.db().RunsOf(ctx, s.SID)
	if err != nil {
		return err
	}
	// Every leaf's CTE answer follows from the rows the walk reads: the
	// edges (sameEntries checked them), the session's duplicate_id and
	// entry count, and the runs it steps over. When those are right, one
	// leaf's walk checks the query itself and the work is linear in the
	// entries; otherwise (or for a session indexed before runs) every
	// leaf is walked both ways and each difference reported.
	run, pos, active := index.Tree(edges, s.Dialect)
	if len(leaves) > 0 && runsRight(s, file.Entries, run, pos, stored) {
		leaves = leaves[len(leaves)-1:]
	}
	for _, leaf := range leaves {
		want := answer(PathTo(file.Entries, leaf.ID))
		got, err := a.db().Path(ctx, s.SID, leaf.ID)
		var gotAns []string
		if err != nil && errs.CodeOf(err) == "" {
			return err
		}
		gotAns = answerRows(got, err)
		if !slices.Equal(want, gotAns) {
			rep.Mismatches++
			rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Leaf: leaf.ID,
				Code: "mismatch", Message: "the CTE over the index and PathTo over the file disagree",
				Index: gotAns, File: want})
		}
	}
	// The active marks (search --branch active) are the path to the
	// active leaf the writer works out from the file.
	on := make([]bool, len(edges))
	for _, seq := range active {
		on[seq] = true
	}
	var gotActive, wantActive []string
	differ := false
	for i, r := range stored {
		if r.Active {
			gotActive = append(gotActive, file.Entries[i].ID)
		}
		if on[i] {
			wantActive = append(wantActive, file.Entries[i].ID)
		}
		differ = differ || r.Active != on[i]
	}
	if differ {
		rep.Mismatches++
		rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Code: "mismatch",
			Message: "the index's active marks and the path to the file's active leaf disagree; run `grove index --force`",
			Index:   gotActive, File: wantActive})
	}
	return nil
}

// runsRight reports whether what the CTE reads besides the edges is what
// the file says: the entry count (its cycle bound), the first duplicated
// id (SPEC §4 rule 1) and every entry's run and pos (migration 8; run and
// pos from index.Tree over the file's entries).
func runsRight(s *index.Session, entries []FileEntry, run, pos []int, stored []index.RunRow) bool {
	if s.Entries != len(entries) || len(stored) != len(entries) {
		return false
	}
	var dup *string
	if d := Duplicates(entries); len(d) > 0 {
		dup = &d[0].ID
	}
	if (dup == nil) != (s.DuplicateID == nil) || dup != nil && *dup != *s.DuplicateID {
		return false
	}
	for i, r := range stored {
		if r.Run == nil || r.Pos == nil || *r.Run != run[i] || *r.Pos != pos[i] {
			return false
		}
	}
	return true
}

// verifyDuplicates reports each id that two or more entries of the file
// have, with all their lines in file order, in the order of their second
// entries; and a mismatch if the duplicate_id diagnostics the index stores
// say otherwise.
func (a *Archive) verifyDuplicates(ctx context.Context, s *index.Session, entries []FileEntry, rep *VerifyReport) error {
	var file []string
	for _, d := range Duplicates(entries) {
		rep.Duplicates++
		e := jsonl.DuplicateLinesError(d.ID, d.Lines)
		rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Code: errs.CodeDuplicateID,
			Message: e.Message, ID: d.ID, Lines: d.Lines})
		file = append(file, fmt.Sprintf("%s:%v", d.ID, d.Lines))
	}
	var stored []string
	if s.Diagnostics > 0 || len(file) > 0 {
		ds, err := a.db().Diagnostics(ctx, s.SID)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if d.Code == string(errs.CodeDuplicateID) {
				stored = append(stored, fmt.Sprintf("%s:%v", d.ID, d.Lines))
			}
		}
	}
	if !slices.Equal(stored, file) {
		rep.Mismatches++
		rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Code: "mismatch",
			Message: "the index's duplicate_id diagnostics and the file's duplicated ids disagree; run `grove index --force`",
			Index:   stored, File: file})
	}
	return nil
}

// Duplicates returns every id that two or more of entries (file order)
// have, with the lines of all of them, in the order of their second
// entries: where recover and the index report them (SPEC §4 rule 1).
func Duplicates(entries []FileEntry) []Duplicate {
	first := make(map[string]int, len(entries)) // id -> line of its first entry
	at := map[string]int{}                      // id -> index in out
	var out []Duplicate
	for _, e := range entries {
		line, seen := first[e.ID]
		switch k, dup := at[e.ID]; {
		case !seen:
			first[e.ID] = e.Line
		case dup:
			out[k].Lines = append(out[k].Lines, e.Line)
		default:
			at[e.ID] = len(out)
			out = append(out, Duplicate{ID: e.ID, Lines: []int{line, e.Line}})
		}
	}
	return out
}

// answer renders a PathTo result for comparison: the ids root first, or
// "error:<code>:<id>:<parent>".
func answer(path []FileEntry, err error) []string {
	if err != nil {
		return errAnswer(err)
	}
	out := make([]string, len(path))
	for i, e := range path {
		out[i] = e.ID
	}
	return out
}

func answerRows(path []index.Entry, err error) []string {
	if err != nil {
		return errAnswer(err)
	}
	out := make([]string, len(path))
	for i, e := range path {
		out[i] = e.EntryID
	}
	return out
}

func errAnswer(err error) []string {
	e, ok := err.(*errs.Error)
	if !ok {
		return []string{"error:" + err.Error()}
	}
	return []string{fmt.Sprintf("error:%s:%s:%s:%v", e.Code, e.ID, e.Parent, e.Lines)}
}

func sameEntries(rows []index.Entry, file []FileEntry) string {
	if len(rows) != len(file) {
		return fmt.Sprintf("the file has %s, the index %d", plural.Count(len(file), "entry", "entries"), len(rows))
	}
	for i, r := range rows {
		e := file[i]
		parentOK := (r.ParentID == nil) == e.Root && (r.ParentID == nil || *r.ParentID == e.ParentID)
		if r.EntryID != e.ID || !parentOK || r.Line != e.Line || r.Offset != e.Offset || r.CRC != crc32.ChecksumIEEE(e.Raw) {
			return fmt.Sprintf("the index and the file disagree at line %d: the file changed since it was indexed (or the index was altered); run `grove index --force`", e.Line)
		}
	}
	return ""
}

// loadEntries reads the entries of session s as PathTo sees them: from
// its file (Load), or in PostgreSQL from the committed bytes the index
// holds, which are what every answer is read back from (SPEC §10).
func (a *Archive) loadEntries(s *index.Session) (*File, error) {
	var f SessionFile
	f, ok := a.db().OpenStored(s)
	if !ok && s.Gone {
		k, err := a.ix.KeptStore().OpenFile(s.Source, s.Path)
		if err != nil {
			code := errs.CodeStaleIndex
			if errors.Is(err, kept.ErrCorrupt) {
				code = errs.CodeIO
			}
			return nil, errs.Wrap(code, err, "the session file is gone and its kept copy cannot be read: "+err.Error()).In(s.Path)
		}
		f, ok = k, true
	}
	if !ok {
		return Load(s.Path)
	}
	defer f.Close()
	var entries []jsonl.Entry
	if _, err := jsonl.ReadFrom(f, s.CommittedLen, jsonl.Resume{}, jsonl.Options{Path: s.Path, Mode: jsonl.Salvage, KeepRaw: true}, func(e jsonl.Entry) error {
		entries = append(entries, e)
		return nil
	}); err != nil {
		return nil, err
	}
	return &File{Path: s.Path, Entries: entries}, nil
}
