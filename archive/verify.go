package archive

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// Problem is one finding of Verify.
type Problem struct {
	Session string     `json:"session"`
	Path    string     `json:"path"`
	Leaf    string     `json:"leaf,omitempty"`
	Code    jsonl.Code `json:"code"` // stale_index, or the code of a mismatching answer
	Message string     `json:"message"`
	Index   []string   `json:"index,omitempty"` // the CTE's answer: path ids, or the error code
	File    []string   `json:"file,omitempty"`  // PathTo's answer over the file
}

// VerifyReport is the answer of `grove verify` (SPEC §8).
type VerifyReport struct {
	Sessions   int       `json:"sessions"`
	Leaves     int       `json:"leaves"`
	Mismatches int       `json:"mismatches"`
	Stale      int       `json:"stale"`
	Problems   []Problem `json:"problems"`
}

// Verify recomputes every leaf's path both ways, by recursive CTE over the
// index and by PathTo over the file, and reports every difference in path
// or error (code and id), plus every file that changed since it was indexed:
// a different size, mtime or inode, or any entry whose id, parent, line,
// offset or CRC-32 differs. session "" verifies every session.
func (a *Archive) Verify(ctx context.Context, session string) (*VerifyReport, error) {
	var sessions []index.Session
	if session != "" {
		s, err := a.Resolve(ctx, session)
		if err != nil {
			return nil, err
		}
		sessions = []index.Session{*s}
	} else {
		var err error
		if sessions, err = a.db.Sessions(ctx, index.SessionFilter{}); err != nil {
			return nil, err
		}
	}
	rep := &VerifyReport{Sessions: len(sessions), Problems: []Problem{}}
	for i := range sessions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := a.verifySession(ctx, &sessions[i], rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func (a *Archive) verifySession(ctx context.Context, s *index.Session, rep *VerifyReport) error {
	stale := func(msg string) {
		rep.Stale++
		rep.Problems = append(rep.Problems, Problem{Session: s.SessionID, Path: s.Path, Code: jsonl.CodeStaleIndex, Message: msg})
	}
	if err := Fresh(s); err != nil {
		stale(err.(*jsonl.Error).Message)
		return nil
	}
	file, err := Load(s.Path)
	if err != nil {
		var je *jsonl.Error
		if errors.As(err, &je) {
			stale(je.Message)
		} else {
			stale(err.Error())
		}
		return nil
	}
	rows, err := a.db.EntriesOf(ctx, s.SID)
	if err != nil {
		return err
	}
	if msg := sameEntries(rows, file.Entries); msg != "" {
		stale(msg)
		return nil
	}
	for _, leaf := range Leaves(file.Entries) {
		rep.Leaves++
		want := answer(PathTo(file.Entries, leaf.ID))
		got, err := a.db.Path(ctx, s.SID, leaf.ID)
		var gotAns []string
		if err != nil && jsonl.CodeOf(err) == "" {
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
	return nil
}

// answer renders a PathTo result for comparison: the ids root first, or
// "error:<code>:<id>:<parent>".
func answer(path []jsonl.Entry, err error) []string {
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
	e, ok := err.(*jsonl.Error)
	if !ok {
		return []string{"error:" + err.Error()}
	}
	return []string{fmt.Sprintf("error:%s:%s:%s:%v", e.Code, e.ID, e.Parent, e.Lines)}
}

func sameEntries(rows []index.Entry, file []jsonl.Entry) string {
	if len(rows) != len(file) {
		return fmt.Sprintf("the file has %s, the index %d", count(len(file), "entry", "entries"), len(rows))
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
