package jsonl

import (
	"fmt"

	"github.com/grove-sessions/grove/errs"
)

// Recover reads the session file at path the way `grove recover` reports it
// (SPEC §2.6, §8): every bad line, the tail, the warnings, and every
// duplicated id (SPEC §4 rule 1, which the index also counts as damage,
// SPEC §6). Entries are streamed and only their ids are kept, so memory
// grows with the number of entries, not with their size.
//
// In Salvage mode each duplicated id is one more error in Result.Errors, on
// the line where the id appears the second time, with ID and every line
// that holds it in Lines; Errors stay in file order. In Strict mode the
// first bad line or the first entry reusing an id, whichever comes first in
// the file, is returned as the error (its Lines then name the two lines
// read so far).
func Recover(path string, mode Mode) (*Result, error) {
	f, size, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	first := map[string]int{}         // id -> the line it first appears on
	dupOf := map[string]*errs.Error{} // id -> its duplicate_id error
	var dups []*errs.Error            // in the order of their second lines
	res, err := ReadOpen(f, size, Options{Path: path, Mode: mode}, func(e Entry) error {
		line, seen := first[e.ID]
		if !seen {
			first[e.ID] = e.Line
			return nil
		}
		if d := dupOf[e.ID]; d != nil {
			d.Lines = append(d.Lines, e.Line)
			return nil
		}
		d := errs.New(errs.CodeDuplicateID, "").In(path).At(e.Line, e.Offset).WithID(e.ID).WithLines([]int{line, e.Line})
		if mode == Strict {
			d.Message = fmt.Sprintf("entry id %q is used again (first on line %d); every path in this session is ambiguous", e.ID, line)
			return d
		}
		dupOf[e.ID] = d
		dups = append(dups, d)
		return nil
	})
	if err != nil {
		return res, err
	}
	if len(dups) == 0 {
		return res, nil
	}
	// Merge the duplicates into the bad lines, both in file order.
	merged := make([]*errs.Error, 0, len(res.Errors)+len(dups))
	i := 0
	for _, d := range dups {
		d.Message = duplicateMessage(d.ID, d.Lines)
		for i < len(res.Errors) && res.Errors[i].Line < d.Line {
			merged = append(merged, res.Errors[i])
			i++
		}
		merged = append(merged, d)
	}
	res.Errors = append(merged, res.Errors[i:]...)
	return res, nil
}
