package jsonl

import (
	"fmt"
	"strings"
)

// Recover reads the session file at path the way `grove recover` reports it
// (SPEC §2.6, §8): every bad line, the tail, and the first duplicated id
// (SPEC §4 rule 1, which the index also counts as damage, SPEC §6). Entries
// are streamed and only their ids are kept, so memory grows with the number
// of entries, not with their size.
//
// In Salvage mode a duplicate id is one more error in Result.Errors, on the
// line where the id appears the second time. In Strict mode the first bad
// line or duplicate id, whichever comes first in the file, is returned as
// the error.
func Recover(path string, mode Mode) (*Result, error) {
	f, size, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	first := map[string]int{}
	var dupID string
	var dupErr *Error
	res, err := ReadOpen(f, size, Options{Path: path, Mode: mode}, func(e Entry) error {
		line, seen := first[e.ID]
		switch {
		case !seen:
			first[e.ID] = e.Line
		case dupErr == nil:
			dupID = e.ID
			dupErr = &Error{Code: CodeDuplicateID, Path: path, Line: e.Line, Offset: e.Offset, ID: e.ID, Lines: []int{line, e.Line}}
			if mode == Strict {
				dupErr.Message = fmt.Sprintf("entry id %q is used again (first on line %d); every path in this session is ambiguous", e.ID, line)
				return dupErr
			}
		case e.ID == dupID:
			dupErr.Lines = append(dupErr.Lines, e.Line)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if dupErr != nil {
		var ls []string
		for _, l := range dupErr.Lines {
			ls = append(ls, fmt.Sprint(l))
		}
		dupErr.Message = fmt.Sprintf("entry id %q is used by more than one entry (lines %s); every path in this session is ambiguous", dupID, strings.Join(ls, ", "))
		// Keep Errors in file order.
		i := 0
		for i < len(res.Errors) && res.Errors[i].Line < dupErr.Line {
			i++
		}
		res.Errors = append(res.Errors[:i], append([]*Error{dupErr}, res.Errors[i:]...)...)
	}
	return res, nil
}
