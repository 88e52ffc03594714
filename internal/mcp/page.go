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
	// with, when set, is a list member whose elements go with the paged
	// list's elements (key): a page holds those whose key is the key of
	// one of its elements, in their order, and no others (leaves' runs:
	// the sub-agent runs of the sessions whose leaves are on the page).
	with string
	key  func(elem []byte) string
}

// lists are the members jsondoc.Split must split: the paged ones and with.
func (p paging) lists() []string {
	if p.with == "" {
		return p.members
	}
	return append(slices.Clone(p.members), p.with)
}

// part is one member of a document being paged: its key and its value as
// written, or for a paged list its n elements, each as written, elem(i)
// giving the i-th (read only when a page needs it; the messages of a
// long session are read from the file page by page).
type part struct {
	key   string
	value []byte
	list  bool
	null  bool // a nil list, written null when empty
	n     int
	elem  func(i int) ([]byte, error)
	got   map[int][]byte // the elements elem gave
}

// get is element i of the list p.
func (p *part) get(i int) ([]byte, error) {
	if e, ok := p.got[i]; ok {
		return e, nil
	}
	e, err := p.elem(i)
	if err != nil {
		return nil, err
	}
	if p.got == nil {
		p.got = map[int][]byte{}
	}
	p.got[i] = e
	return e, nil
}

// partsOf is the document ms (jsondoc.Split's) as parts.
func partsOf(ms []jsondoc.Member) []*part {
	var ps []*part
	for _, m := range ms {
		p := &part{key: m.Key, value: m.Value}
		if m.Elems != nil {
			elems := m.Elems
			p.list, p.null, p.n = true, m.Null, len(elems)
			p.elem = func(i int) ([]byte, error) { return elems[i], nil }
		}
		ps = append(ps, p)
	}
	return ps
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

// page is one page of the document ps: the elements of its lists (one,
// or several of equal length paged together) from at on that fit budget
// bytes with the rest of the document, never part of one. A document that
// fits whole is returned as it is. Otherwise every page has the
// document's other members as they are, the slice of each list, then
// "page":{"from","count","of"} (elements before it, in it, in all) and,
// while elements remain, "next_cursor" (next(at) makes it). Only the
// elements a page needs are read (and the one that does not fit).
// Errors: over_budget when the element at does not fit even alone (with
// the cursor that goes on after it), stale_index when at is past the end,
// and an element's own.
func (p paging) page(ps []*part, at, budget int, next func(at int) string) ([]byte, error) {
	n := -1
	fixed := 1     // the document without its elements: braces, keys, values, brackets
	var with *part // the list whose elements go with the paged ones
	for i, m := range ps {
		if i > 0 {
			fixed++
		}
		fixed += len(strconv.Quote(m.key)) + 1
		if !m.list {
			fixed += len(m.value)
			continue
		}
		fixed += 2
		if m.key == p.with {
			with = m
			continue
		}
		if n >= 0 && m.n != n {
			return nil, fmt.Errorf("paging %v: lists of %d and %d elements", p.members, n, m.n)
		}
		n = m.n
	}
	fixed++
	if n < 0 {
		return nil, fmt.Errorf("paging %v: the document has none of them", p.members)
	}
	// cost is what element i adds to a page: each list's element and a
	// comma before it, and the elements of with that come with it and are
	// not on the page yet (withKeys, reset for each page).
	withKeys := map[string]bool{}
	cost := func(i int) (int, error) {
		c := 0
		for _, m := range ps {
			if m.list && m != with {
				e, err := m.get(i)
				if err != nil {
					return 0, err
				}
				c += len(e) + 1
			}
		}
		if with != nil {
			e, _ := ps[p.pagedIndex(ps)].get(i)
			if k := p.key(e); !withKeys[k] {
				withKeys[k] = true
				for j := 0; j < with.n; j++ {
					if we, _ := with.get(j); p.key(we) == k {
						c += len(we) + 1
					}
				}
			}
		}
		return c, nil
	}
	if at == 0 && with != nil { // whole, when it fits: every element of with too
		if whole := join(ps, 0, n, nil, p.with, nil); len(whole) <= budget {
			return whole, nil
		}
	}
	if at == 0 && with == nil { // whole, when it fits
		size, whole := fixed, true
		for i := 0; i < n && whole; i++ {
			c, err := cost(i)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				c -= len(p.members) // no comma before the first
			}
			size += c
			whole = size <= budget
		}
		if n == 0 {
			for _, m := range ps {
				if m.list && m.null {
					size += 2 // null, not []
				}
			}
		}
		if whole && size <= budget {
			return join(ps, 0, n, nil, p.with, nil), nil
		}
	}
	if at > n {
		return nil, staleCursor(fmt.Sprintf("the cursor goes on after element %d, but the answer now has %s: it changed since the first page; ask again without cursor", at, plural.Count(n, "element", "elements")))
	}
	// What a page costs besides its elements: the rest of the document,
	// and the page and cursor members at their longest.
	size := fixed + len(`,"page":{"from":,"count":,"of":}`) + 3*len(strconv.Itoa(n))
	if at < n {
		size += len(`,"next_cursor":""`) + len(next(n))
	}
	if size > budget {
		return nil, overBudget(fmt.Sprintf("the answer's own members, its lists aside, need %s, more than the budget of %s; ask again with a larger budget (at most %d)",
			plural.Count(size, "byte", "bytes"), plural.Count(budget, "byte", "bytes"), MaxBudget))
	}
	clear(withKeys)
	end := at
	for end < n {
		c, err := cost(end)
		if err != nil {
			return nil, err
		}
		if size+c > budget {
			break
		}
		size += c
		end++
	}
	if end == at && at < n {
		clear(withKeys)
		c, err := cost(at)
		if err != nil {
			return nil, err
		}
		need := size + c
		what := p.name(at, ps)
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
	var picked []int // the elements of with that go with the page's
	if with != nil {
		keys := map[string]bool{}
		for i := at; i < end; i++ {
			e, _ := ps[p.pagedIndex(ps)].get(i)
			keys[p.key(e)] = true
		}
		for j := 0; j < with.n; j++ {
			if we, _ := with.get(j); keys[p.key(we)] {
				picked = append(picked, j)
			}
		}
		if picked == nil {
			picked = []int{} // none go with this page's elements
		}
	}
	return join(ps, at, end, extra, p.with, picked), nil
}

// pagedIndex is the place in ps of the first paged list (not with).
func (p paging) pagedIndex(ps []*part) int {
	for i, m := range ps {
		if m.list && m.key != p.with {
			return i
		}
	}
	return -1
}

// join writes the document ps with elements [from, to) of its paged lists
// (read already), then the members of extra (each `"key":value`). The
// list named with (paging.with; "" for none) is written whole when picked
// is nil, else only its elements picked lists.
func join(ps []*part, from, to int, extra []string, with string, picked []int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.key))
		b.WriteByte(':')
		if !m.list {
			b.Write(m.value)
			continue
		}
		var idx []int
		switch {
		case m.key == with && picked != nil:
			idx = picked
		case m.key == with:
			for j := 0; j < m.n; j++ {
				idx = append(idx, j)
			}
		default:
			for j := from; j < to; j++ {
				idx = append(idx, j)
			}
		}
		if m.null && len(idx) == 0 {
			b.WriteString("null") // as the command line writes a nil list
			continue
		}
		b.WriteByte('[')
		for k, j := range idx {
			if k > 0 {
				b.WriteByte(',')
			}
			e, _ := m.get(j)
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
func (p paging) name(i int, ps []*part) string {
	what := fmt.Sprintf("%s %d of the answer", p.noun, i)
	for _, m := range ps {
		var s string
		if e, ok := m.got[i]; ok && json.Unmarshal(e, &s) == nil {
			return what + " (entry " + strconv.Quote(s) + ")"
		}
	}
	for _, m := range ps {
		var o struct {
			ID      any    `json:"id"`
			Session string `json:"session"`
		}
		if e, ok := m.got[i]; ok && json.Unmarshal(e, &o) == nil && o.ID != nil {
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
