package jsonl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
)

// FirstDuplicate applies SPEC §4 rule 1 to entries in file order: it returns
// a duplicate_id *errs.Error for the first id that appears a second time, with
// every line that holds it, or nil when all ids are unique.
//
// It lives here, beside the dialects, because both the tree rules
// (archive.PathTo) and the writer's open (SPEC §5) need it.
func FirstDuplicate(entries []Entry) *errs.Error {
	seen := make(map[string]struct{}, len(entries))
	for _, e := range entries {
		if _, dup := seen[e.ID]; dup {
			return DuplicateError(e.ID, entries)
		}
		seen[e.ID] = struct{}{}
	}
	return nil
}

// DuplicateError builds the duplicate_id error for id: every line of entries
// that holds it, in file order.
func DuplicateError(id string, entries []Entry) *errs.Error {
	var lines []int
	for _, x := range entries {
		if x.ID == id {
			lines = append(lines, x.Line)
		}
	}
	return DuplicateLinesError(id, lines)
}

// DuplicateLinesError is the duplicate_id error of SPEC §4 rule 1 for id,
// used on lines (physical line numbers, file order), whose message names
// them.
func DuplicateLinesError(id string, lines []int) *errs.Error {
	return errs.New(errs.CodeDuplicateID, duplicateMessage(id, lines)).WithID(id).WithLines(lines)
}

// maxListedLines is how many lines of a duplicated id a message names; the
// Lines field always holds all of them.
const maxListedLines = 10

// duplicateMessage says that id is used on lines, naming at most
// maxListedLines of them.
func duplicateMessage(id string, lines []int) string {
	var b strings.Builder
	for i, l := range lines {
		if i == maxListedLines {
			fmt.Fprintf(&b, " and %d more", len(lines)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l))
	}
	return "entry id " + quote(id) + " is used by more than one entry (lines " + b.String() + "); every path in this session is ambiguous"
}

func quote(s string) string { return "\"" + s + "\"" }

// MissingParentError is the missing_parent error of SPEC §4 rule 2 for the
// entry id on line (starting at byte offset) that names parent.
func MissingParentError(id, parent string, line int, offset int64) *errs.Error {
	return errs.New(errs.CodeMissingParent, "entry "+quote(id)+" names parent "+quote(parent)+", which is not in the session").At(line, offset).WithID(id).WithParent(parent)
}

// CycleError is the cycle error of SPEC §4 rule 2. walk is the ids met on
// the walk from the leaf towards the root, the last of them met twice; the
// error names that id and the loop, from its first meeting round to it
// again ("cycle: e04 -> e03 -> e02 -> e04", case 09), as Loop and in the
// message. line is the physical line of the entry met twice (the one the
// loop starts and ends at), offset the byte its line starts at. PathTo and
// the index's recursive walk give the same loop, line and offset.
func CycleError(walk []string, line int, offset int64) *errs.Error {
	id := walk[len(walk)-1]
	loop := walk[len(walk)-1:]
	for i, w := range walk[:len(walk)-1] {
		if w == id {
			loop = walk[i:]
			break
		}
	}
	loop = append([]string(nil), loop...)
	msg := "cycle: " + strings.Join(loop, " -> ")
	if len(loop) == 2 {
		msg += " (" + quote(id) + " is its own parent)"
	}
	return errs.New(errs.CodeCycle, msg+"; the walk to the root never reaches one").At(line, offset).WithID(id).WithLoop(loop)
}

// UnknownEntryError is the unknown_entry error of SPEC §4 rule 2.
func UnknownEntryError(id string) *errs.Error {
	return errs.New(errs.CodeUnknownEntry, "no entry "+quote(id)+" in the session").WithID(id)
}
