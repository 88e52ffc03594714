package errs

import "errors"

// New returns an error of code with message (lower-case, without the path
// or line, which Error adds). Offset is -1: set a place with At.
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message, Offset: -1}
}

// Wrap returns an error of code caused by err, which Unwrap returns. An
// empty message shows err's own text.
func Wrap(code Code, err error, message string) *Error {
	return &Error{Code: code, Message: message, Err: err, Offset: -1}
}

// The setters below fill one field of an error that New or Wrap has just
// made and return it, so that a construction reads as one expression:
//
//	errs.New(errs.CodeBadLine, "not valid JSON").In(path).At(7, 1024)
//
// They change e in place: call them only on an error nobody else holds yet.

// In sets the session file (or other file) the error is about.
func (e *Error) In(path string) *Error { e.Path = path; return e }

// At sets the physical line (1-based, 0 when not line-specific) and the byte
// offset of its first byte (-1 when unknown), SPEC §1.
func (e *Error) At(line int, offset int64) *Error { e.Line, e.Offset = line, offset; return e }

// WithHint sets what the user can do about the error.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// WithID sets the entry the error is about.
func (e *Error) WithID(id string) *Error { e.ID = id; return e }

// WithParent sets the parent id that names no entry (missing_parent).
func (e *Error) WithParent(parent string) *Error { e.Parent = parent; return e }

// WithLines sets every line holding a duplicated id (duplicate_id).
func (e *Error) WithLines(lines []int) *Error { e.Lines = lines; return e }

// WithLoop sets the ids of a cycle, from the id met twice round to it again.
func (e *Error) WithLoop(loop []string) *Error { e.Loop = loop; return e }

// WithField sets the field path inside the line, e.g. "message.content[0].text".
func (e *Error) WithField(field string) *Error { e.Field = field; return e }

// WithSession sets the session argument that names no session or several.
func (e *Error) WithSession(arg string) *Error { e.Session = arg; return e }

// WithCandidates sets the sessions an ambiguous session argument names.
func (e *Error) WithCandidates(c []Candidate) *Error { e.Candidates = c; return e }

// As returns the first *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
