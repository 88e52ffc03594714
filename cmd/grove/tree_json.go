package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

// The --json shapes of grove tree (SPEC §8): nested (writeTreeJSON) and
// --flat (writeTreeFlatJSON), written with explicit stacks.

// writeTreeJSON writes SPEC §8's {"session","roots":[...]} for t, with
// the cycle roots after the other roots (see treeHelp for the node shape).
// Nodes nest as deep as the tree (a linear chain of 100,000 entries is
// 100,000 levels), so the document is written by a loop with an explicit
// stack, not by encoding/json, which recurses once per level.
func writeTreeJSON(w io.Writer, session string, t *archive.Tree) error {
	jw := &treeJSON{w: bufio.NewWriterSize(w, 64<<10), t: t}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	jw.w.WriteString(`{"session":`)
	jw.str(session)
	jw.w.WriteString(`,"roots":[`)
	for i, r := range append(append([]int(nil), t.Roots...), t.Cycles...) {
		if i > 0 {
			jw.w.WriteByte(',')
		}
		jw.tree(r)
	}
	jw.w.WriteString("]}\n")
	if jw.err != nil {
		return jw.err
	}
	return jw.w.Flush()
}

type treeJSON struct {
	w   *bufio.Writer
	t   *archive.Tree
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

// tree writes the node root and everything below it. Each stack element
// is the next child to write of an open node (-1: close it).
func (jw *treeJSON) tree(root int) {
	nodes := jw.t.Nodes
	type cursor struct {
		next  int
		first bool
	}
	jw.open(root)
	stack := []cursor{{nodes[root].FirstChild, true}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < 0 {
			jw.w.WriteString("]}")
			stack = stack[:len(stack)-1]
			continue
		}
		c := top.next
		if !top.first {
			jw.w.WriteByte(',')
		}
		top.first = false
		top.next = nodes[c].NextSibling
		jw.open(c)
		stack = append(stack, cursor{nodes[c].FirstChild, true})
	}
}

// open writes a node's members up to its children's opening bracket.
func (jw *treeJSON) open(i int) {
	jw.members(i)
	jw.w.WriteString(`,"children":[`)
}

// members writes a node's opening brace and members, children aside.
func (jw *treeJSON) members(i int) {
	n := &jw.t.Nodes[i]
	w := jw.w
	switch n.Kind {
	case archive.NodeFold:
		w.WriteString(`{"id":null,"type":"fold","role":null,"label":null,"active":false,"kind":null,"preview":`)
		jw.str("… " + plural.Count(n.Folded, "entry", "entries") + " …")
		fmt.Fprintf(w, `,"folded":%d`, n.Folded)
		return
	case archive.NodeCut:
		w.WriteString(`{"id":null,"type":"cut","role":null,"label":null,"active":false,"kind":null,"preview":`)
		jw.str(cutText(n))
		fmt.Fprintf(w, `,"folded":%d,"leaves":%d,"branches":%d`, n.Folded, n.Leaves, n.Branches)
		return
	}
	e := &jw.t.Entries[n.Entry]
	w.WriteString(`{"id":`)
	jw.str(e.EntryID)
	w.WriteString(`,"type":`)
	jw.str(e.Type)
	w.WriteString(`,"role":`)
	jw.strOrNull(deref(e.Role))
	w.WriteString(`,"label":`)
	jw.strOrNull(n.Label)
	fmt.Fprintf(w, `,"active":%t,"kind":`, n.Active)
	jw.str(branchKind(e.Kind))
	w.WriteString(`,"preview":`)
	jw.str(archive.ClipRunes(n.Preview, archive.PreviewWidth))
	var problems []string
	if n.Missing {
		problems = append(problems, `"missing_parent"`)
	}
	if n.Cycle {
		problems = append(problems, `"cycle"`)
	}
	if n.Duplicate {
		problems = append(problems, `"duplicate_id"`)
	}
	if len(problems) > 0 {
		w.WriteString(`,"problems":[` + strings.Join(problems, ",") + `]`)
		if n.Missing || n.Cycle {
			w.WriteString(`,"parent":`)
			jw.str(deref(e.ParentID))
		}
	}
}

// writeTreeFlatJSON writes t as {"session","nodes":[node...]}: the nodes of
// the nested form in the order a walk draws them, each without "children"
// but with "node" (its position in the list) and "parent_node" (the
// position of the node it hangs under; null for a root; "parent" stays the
// parentId of a damaged entry). Nothing nests, so a decoder
// with a depth limit reads any session's tree.
func writeTreeFlatJSON(w io.Writer, session string, t *archive.Tree) error {
	jw := &treeJSON{w: bufio.NewWriterSize(w, 64<<10), t: t}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	jw.w.WriteString(`{"session":`)
	jw.str(session)
	jw.w.WriteString(`,"nodes":[`)
	type item struct{ node, parent int }
	var stack []item
	roots := append(append([]int(nil), t.Roots...), t.Cycles...)
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], -1})
	}
	k := 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if k > 0 {
			jw.w.WriteByte(',')
		}
		jw.members(it.node)
		fmt.Fprintf(jw.w, `,"node":%d,"parent_node":`, k)
		if it.parent < 0 {
			jw.w.WriteString("null}")
		} else {
			fmt.Fprintf(jw.w, "%d}", it.parent)
		}
		kids := t.Children(it.node)
		for j := len(kids) - 1; j >= 0; j-- {
			stack = append(stack, item{kids[j], k})
		}
		k++
	}
	jw.w.WriteString("]}\n")
	if jw.err != nil {
		return jw.err
	}
	return jw.w.Flush()
}

func (jw *treeJSON) strOrNull(s string) {
	if s == "" {
		jw.w.WriteString("null")
		return
	}
	jw.str(s)
}

// str writes s as a JSON string, HTML characters unescaped as writeJSON
// writes them.
func (jw *treeJSON) str(s string) {
	jw.buf.Reset()
	if err := jw.enc.Encode(s); err != nil && jw.err == nil {
		jw.err = err
	}
	jw.w.Write(bytes.TrimSuffix(jw.buf.Bytes(), []byte("\n")))
}
