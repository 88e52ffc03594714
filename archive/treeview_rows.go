package archive

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// Reading the previews of a built tree, answering `grove tree`, and drawing its
// rows (`grove tree`, grove serve's tree page).

// ReadPreviews fills the Preview of every entry node from the session file
// at path: each shown entry's committed line is read back by byte offset,
// checked against the CRC-32 the index stored (ReadLine), and summarized
// in at most width runes (PreviewIn, in dialect d). Folded and cut entries are not read.
// Decoding the lines is most of the work, so the entries are split, in
// file order, among one goroutine per CPU. Errors: stale_index when the
// file cannot be opened or a line changed (the first in file order).
func (t *Tree) ReadPreviews(path string, d Dialect, width int) error {
	var shown []int
	for i := range t.Nodes {
		if t.Nodes[i].Kind == NodeEntry {
			shown = append(shown, i)
		}
	}
	return t.ReadPreviewsOf(path, d, width, shown)
}

// ReadPreviewsOf is ReadPreviews for the nodes given (indexes into
// t.Nodes; nodes that are no entry are passed over): a page that draws
// some rows of a large tree reads only theirs. It reorders nodes.
func (t *Tree) ReadPreviewsOf(path string, d Dialect, width int, nodes []int) error {
	var f SessionFile
	var err error
	if t.Session != nil && (t.Session.store != nil || t.Session.kept != nil) && t.Session.Path == path {
		f, err = t.Session.open() // the committed bytes the index or the kept store holds (SPEC §10, §11)
	} else if f, err = os.Open(path); err != nil {
		err = errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errs.PathReason(err)).In(path).WithHint(hintRunIndex)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	shown := slices.DeleteFunc(nodes, func(i int) bool { return t.Nodes[i].Kind != NodeEntry })
	slices.SortFunc(shown, func(a, b int) int { return t.Nodes[a].Entry - t.Nodes[b].Entry })
	workers := max(1, min(runtime.GOMAXPROCS(0), len(shown)/256))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		part := shown[w*len(shown)/workers : (w+1)*len(shown)/workers]
		wg.Go(func() {
			for _, i := range part {
				raw, err := ReadLine(f, path, t.Entries[t.Nodes[i].Entry])
				if err != nil {
					errs[w] = err
					return
				}
				t.Nodes[i].Preview = PreviewIn(d, raw, width)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Tree answers `grove tree`: the session's entries and labels from the
// index, shaped by BuildTree, with the previews of the shown entries read
// back from the file, and its sub-agent runs (Runs), whose calls are
// always shown. Errors: those of Resolve, and stale_index when the file
// changed since it was indexed.
func (a *Archive) Tree(ctx context.Context, session string, opt TreeOptions) (*Tree, error) {
	s, err := a.resolve(ctx, session)
	if err != nil {
		return nil, err
	}
	if err := a.fresh(s); err != nil {
		return nil, err
	}
	l, err := a.load(ctx, s, true)
	if err != nil {
		return nil, err
	}
	active := ""
	if s.ActiveLeaf != nil {
		active = *s.ActiveLeaf
	}
	runs, err := a.runsOfSession(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, r := range runs.Runs {
		if r.Call != "" {
			if opt.Keep == nil {
				opt.Keep = map[string]bool{}
			}
			opt.Keep[r.Call] = true
		}
	}
	entries := l.entries
	if !opt.All {
		entries = slices.DeleteFunc(slices.Clone(entries), func(e Entry) bool { return e.PathKind != jsonl.KindBranch.String() })
	}
	t := BuildTree(entries, l.labels, active, opt)
	t.Session = l.s
	t.Runs = runs
	if opt.NoPreviews {
		return t, nil
	}
	if err := t.ReadPreviews(s.Path, l.s.Dialect, TreePreviewWidth); err != nil {
		return nil, err
	}
	return t, nil
}

// Connector is how a drawn tree row hangs under its branch point.
type Connector uint8

const (
	ConnNone Connector = iota // on its parent's chain, at the parent's indentation
	ConnMid                   // a branch point's child with siblings after it: ├──
	ConnLast                  // a branch point's last child: └──
)

// TreeRow is one row of a drawn tree (`grove tree`, grove serve's tree
// page): the node and the indentation it is drawn at.
type TreeRow struct {
	Node int
	// Levels has one element per indentation level above the row: true
	// when the branch at that level was its branch point's last child
	// (drawn "    "), false otherwise ("│   "). Rows reuses it: copy it
	// to keep it past the callback.
	Levels []bool
	Conn   Connector
}

// The indentation Prefix draws: deeper than MaxIndent levels, a row draws
// only its deepest DeepWindow levels, after "+N " for the N left out, so a
// session whose retries branch hundreds of levels deep stays in bounded
// width.
const (
	MaxIndent  = 12
	DeepWindow = 6
)

// Rows walks the tree under root depth first, in the order `grove tree`
// draws it, and calls f for each row. A linear chain stays at one
// indentation; a branch point's children hang one level deeper, in file
// order (SPEC §4), the last with ConnLast; a cut below a branch point
// (NodeCut) hangs as its last child.
func (t *Tree) Rows(root int, f func(TreeRow)) {
	type frame struct {
		node, d int
		conn    Connector
	}
	var last []bool
	var kids []int
	stack := []frame{{node: root}}
	for len(stack) > 0 {
		fr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		last = last[:fr.d]
		d := fr.d
		f(TreeRow{Node: fr.node, Levels: last, Conn: fr.conn})
		if fr.conn != ConnNone {
			last = append(last, fr.conn == ConnLast)
			d++
		}
		kids = kids[:0]
		for c := t.Nodes[fr.node].FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
			kids = append(kids, c)
		}
		switch {
		case len(kids) == 1 && t.Nodes[kids[0]].Kind == NodeCut:
			stack = append(stack, frame{node: kids[0], d: d, conn: ConnLast})
		case len(kids) == 1:
			stack = append(stack, frame{node: kids[0], d: d})
		default:
			for i := len(kids) - 1; i >= 0; i-- {
				conn := ConnMid
				if i == len(kids)-1 {
					conn = ConnLast
				}
				stack = append(stack, frame{node: kids[i], d: d, conn: conn})
			}
		}
	}
}

// Prefix is the row's indentation as `grove tree` draws it: "│   " or
// "    " per level (the deepest DeepWindow after "+N " when there are more
// than MaxIndent), then "├── " or "└── " for a branch point's child.
func (r TreeRow) Prefix() string {
	var b strings.Builder
	levels := r.Levels
	if len(levels) > MaxIndent {
		fmt.Fprintf(&b, "+%d ", len(levels)-DeepWindow)
		levels = levels[len(levels)-DeepWindow:]
	}
	for _, l := range levels {
		if l {
			b.WriteString("    ")
		} else {
			b.WriteString("│   ")
		}
	}
	switch r.Conn {
	case ConnMid:
		b.WriteString("├── ")
	case ConnLast:
		b.WriteString("└── ")
	}
	return b.String()
}
