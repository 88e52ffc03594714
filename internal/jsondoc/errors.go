package jsondoc

import (
	"errors"

	"github.com/grove-sessions/grove/errs"
)

// Error is SPEC §8's error object, the value of {"error":{...}}: code and
// message, then the details that apply.
type Error struct {
	Code       string           `json:"code"`
	Message    string           `json:"message"`
	Path       string           `json:"path,omitempty"`
	Line       int              `json:"line,omitempty"`
	Offset     *int64           `json:"offset,omitempty"`
	ID         string           `json:"id,omitempty"`
	Parent     *string          `json:"parent,omitempty"`
	Lines      []int            `json:"lines,omitempty"`
	Loop       []string         `json:"loop,omitempty"`
	Session    string           `json:"session,omitempty"`
	Candidates []errs.Candidate `json:"candidates,omitempty"`
	Hint       string           `json:"hint,omitempty"`
}

// ErrorOf is the error object of err: an *errs.Error anywhere in err's
// chain gives its code and details; anything else is code "error" with
// err's text. A front end sets its own codes (usage, interrupted) on
// what it knows to be one.
func ErrorOf(err error) Error {
	obj := Error{Code: "error", Message: err.Error()}
	var je *errs.Error
	if !errors.As(err, &je) {
		return obj
	}
	obj.Code = string(je.Code)
	obj.Message = je.Message
	if je.Message == "" && je.Err != nil {
		obj.Message = je.Err.Error()
	}
	obj.Path, obj.ID, obj.Lines, obj.Loop, obj.Hint = je.Path, je.ID, je.Lines, je.Loop, je.Hint
	obj.Session, obj.Candidates = je.Session, je.Candidates
	if je.Line > 0 {
		obj.Line = je.Line
		if je.Offset >= 0 {
			off := je.Offset
			obj.Offset = &off
		}
	}
	if je.Code == errs.CodeMissingParent {
		parent := je.Parent
		obj.Parent = &parent
	}
	return obj
}
