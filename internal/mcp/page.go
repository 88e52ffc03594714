package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/plural"
)

// The budget of one answer, in bytes of its JSON document (SPEC §12).
const (
	// DefaultBudget fits the tool results agents take whole: pi cuts the
	// middle out of a text result over 20 KB, Claude Code sets aside one
	// over 50,000 characters (their documentation).
	DefaultBudget = 16 << 10
	MinBudget     = 1 << 10 // room for a document's own members and one small element
	MaxBudget     = 1 << 20
)

// cursor is where an answer goes on: the tool and the arguments of the
// call that began it (budget and cursor aside), how many elements of its
// paged list the pages before gave, and what the first page fixed so
// that the rest come from the same answer. It travels as base64url of
// its JSON: opaque to the caller, checked when it comes back.
type cursor struct {
	Tool    string          `json:"t"`
	Args    json.RawMessage `json:"a"`
	At      int             `json:"n"`
	Leaf    string          `json:"l,omitempty"` // path, messages, context: the leaf of the first page
	Entries int             `json:"e,omitempty"` // tree: the session's entries at the first page
}

func (c cursor) String() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseCursor reads a cursor given back; the error is a usage error
// naming what is wrong with it.
func parseCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Tool == "" || c.At < 0 {
		return cursor{}, usage("cursor %q is none this server gave: pass next_cursor of an answer as it is", clip(s, 40))
	}
	return c, nil
}

// paging is how one document is cut into pages: the members whose
// elements are paged (one list, or lists of equal length paged together,
// as context's messages and keptEntryIds), and what an element is called
// in a message ("message").
type paging struct {
	members []string
	noun    string
	hint    string // what else helps when an element does not fit
}

// members is doc (one compact JSON object, as jsondoc writes it) as
// jsondoc.Split gives a document: the members named in lists split into
// their elements.
func members(doc []byte, lists []string) ([]jsondoc.Member, error) {
	var ms []jsondoc.Member
	ok := archive.Members(bytes.TrimSpace(doc), func(k string, v []byte) bool {
		m := jsondoc.Member{Key: k, Value: v}
		if slices.Contains(lists, k) {
			m.Elems = [][]byte{}
			if !archive.Elements(v, func(e []byte) { m.Elems = append(m.Elems, e) }) {
				return false
			}
		}
		ms = append(ms, m)
		return true
	})
	if !ok {
		return nil, fmt.Errorf("paging %v: not a JSON object with those lists", lists)
	}
	return ms, nil
}

// page is one page of the document ms: the elements of its split lists
// (one, or several of equal length paged together) from at on that fit
// budget bytes with the rest of the document, never part of one. A
// document that fits whole is returned as it is. Otherwise every page has
// the document's other members as they are, the slice of each list, then
// "page":{"from","count","of"} (elements before it, in it, in all) and,
// while elements remain, "next_cursor" (next(at) makes it). Errors:
// over_budget when the element at does not fit even alone (with the
// cursor that goes on after it), stale_index when at is past the end.
func (p paging) page(ms []jsondoc.Member, at, budget int, next func(at int) string) ([]byte, error) {
	n := -1
	whole := 1 // the document's size: braces, commas, keys, values
	for i, m := range ms {
		if i > 0 {
			whole++
		}
		whole += len(strconv.Quote(m.Key)) + 1
		if m.Elems == nil {
			whole += len(m.Value)
			continue
		}
		whole += 2 + max(0, len(m.Elems)-1)
		if m.Null {
			whole += 2 // null, not []
		}
		for _, e := range m.Elems {
			whole += len(e)
		}
		if n >= 0 && len(m.Elems) != n {
			return nil, fmt.Errorf("paging %v: lists of %d and %d elements", p.members, n, len(m.Elems))
		}
		n = len(m.Elems)
	}
	whole++
	if n < 0 {
		return nil, fmt.Errorf("paging %v: the document has none of them", p.members)
	}
	if at == 0 && whole <= budget {
		return join(ms, 0, n, nil), nil
	}
	if at > n {
		return nil, staleCursor(fmt.Sprintf("the cursor goes on after element %d, but the answer now has %s: it changed since the first page; ask again without cursor", at, plural.Count(n, "element", "elements")))
	}
	// What a page costs besides its elements: the other members, the
	// brackets, and the page and cursor members at their longest.
	size := 2 + len(`,"page":{"from":,"count":,"of":}`) + 3*len(strconv.Itoa(n))
	if at < n {
		size += len(`,"next_cursor":""`) + len(next(n))
	}
	for i, m := range ms {
		if i > 0 {
			size++
		}
		size += len(strconv.Quote(m.Key)) + 1
		if m.Elems == nil {
			size += len(m.Value)
		} else {
			size += 2
		}
	}
	if size > budget {
		return nil, overBudget(fmt.Sprintf("the answer's own members, its lists aside, need %s, more than the budget of %s; ask again with a larger budget (at most %d)",
			plural.Count(size, "byte", "bytes"), plural.Count(budget, "byte", "bytes"), MaxBudget))
	}
	end := at
	for end < n {
		cost := 0
		for _, m := range ms {
			if m.Elems != nil {
				cost += len(m.Elems[end]) + 1
			}
		}
		if size+cost > budget {
			break
		}
		size += cost
		end++
	}
	if end == at && at < n {
		need := size
		for _, m := range ms {
			if m.Elems != nil {
				need += len(m.Elems[at]) + 1
			}
		}
		what := p.name(at, ms)
		e := overBudget(fmt.Sprintf("%s is too large for a page: with the rest of the answer it needs %s, the budget is %s; ask again with a budget of at least %d (at most %d), or with cursor %s to go on after it",
			what, plural.Count(need, "byte", "bytes"), plural.Count(budget, "byte", "bytes"), need, MaxBudget, next(at+1)))
		if need > MaxBudget {
			e = overBudget(fmt.Sprintf("%s is too large for any page: with the rest of the answer it needs %s, more than the largest budget (%d); the command line (grove) answers it whole; cursor %s goes on after it",
				what, plural.Count(need, "byte", "bytes"), MaxBudget, next(at+1)))
		}
		e.cursor = next(at + 1)
		return nil, e
	}
	pg := fmt.Sprintf(`"page":{"from":%d,"count":%d,"of":%d}`, at, end-at, n)
	extra := []string{pg}
	if end < n {
		extra = append(extra, `"next_cursor":`+strconv.Quote(next(end)))
	}
	return join(ms, at, end, extra), nil
}

// join writes the document ms with elements [from, to) of its lists, then
// the members of extra (each `"key":value`).
func join(ms []jsondoc.Member, from, to int, extra []string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.Key))
		b.WriteByte(':')
		if m.Elems == nil {
			b.Write(m.Value)
			continue
		}
		if m.Null && from == to {
			b.WriteString("null") // as the command line writes a nil list
			continue
		}
		b.WriteByte('[')
		for j, e := range m.Elems[from:to] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(e)
		}
		b.WriteByte(']')
	}
	for _, x := range extra {
		b.WriteByte(',')
		b.WriteString(x)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// name is what the element i of the paged lists is called in a message:
// "message 3 of the answer (entry e7)", from an element that is a string
// (an entry id of path, keptEntryIds, entryIds), else the id and session
// of an element that is an object (leaves, hits, sessions, tree nodes).
func (p paging) name(i int, ms []jsondoc.Member) string {
	what := fmt.Sprintf("%s %d of the answer", p.noun, i)
	for _, m := range ms {
		if m.Elems == nil || i >= len(m.Elems) {
			continue
		}
		var s string
		if json.Unmarshal(m.Elems[i], &s) == nil {
			return what + " (entry " + strconv.Quote(s) + ")"
		}
	}
	for _, m := range ms {
		if m.Elems == nil || i >= len(m.Elems) {
			continue
		}
		var o struct {
			ID      any    `json:"id"`
			Session string `json:"session"`
		}
		if json.Unmarshal(m.Elems[i], &o) == nil && o.ID != nil {
			what += fmt.Sprintf(" (id %v", o.ID)
			if o.Session != "" {
				what += " of session " + o.Session
			}
			return what + ")"
		}
	}
	return what
}

// toolError is an answer of isError: SPEC §8's error object, and for
// over_budget the cursor that goes on after the element that did not fit.
type toolError struct {
	obj    jsondoc.Error
	cursor string
}

func (e *toolError) Error() string { return e.obj.Message + " [" + e.obj.Code + "]" }

// usage is a call whose arguments are wrong: code usage, as grove's
// command line answers a wrong command line.
func usage(format string, args ...any) *toolError {
	return &toolError{obj: jsondoc.Error{Code: "usage", Message: fmt.Sprintf(format, args...)}}
}

// staleCursor is a cursor that goes on with an answer that changed since
// its first page: code stale_index, as an answer about a file that
// changed since it was indexed.
func staleCursor(msg string) *toolError {
	return &toolError{obj: jsondoc.Error{Code: "stale_index", Message: msg}}
}

func overBudget(msg string) *toolError {
	return &toolError{obj: jsondoc.Error{Code: "over_budget", Message: msg}}
}

// clip is s cut to n bytes with "…" (for echoing a bad argument).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
