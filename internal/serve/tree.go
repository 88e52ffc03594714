package serve

import (
	"net/http"
	"strconv"

	"github.com/grove-sessions/grove/archive"
)

// treeView is /s/{session}: the session's facts, its diagnostics and its
// tree drawn as grove tree draws it (SPEC §8), each entry a link to the
// path to it.
type treeView struct {
	page
	S           *archive.Session
	Arg         string // what archive was asked for: the id, or the file of an ambiguous id
	File        string // ?file= to keep in links, "" when the id is unique
	Rows        []treeRow
	Diagnostics []archive.Diagnostic
	Duplicates  []archive.Duplicate
	Cycles      int // rows from this one on are unreachable from any root: -1 for none
	Shown       int
	Total       int
	Folded      int
	Cut         int
	Full        bool
	FullHref    string // this page with every entry
	FoldHref    string // this page with runs folded
}

// treeRow is one drawn row.
type treeRow struct {
	Prefix  string // "│   ├── " as grove tree draws it
	Kind    string // "entry", "fold" or "cut"
	ID      string
	What    string // role of a message, else the type
	Preview string
	Label   string
	Time    string // a leaf's
	Active  bool
	Leaf    bool
	Root    bool // the first row of a root's tree (a blank line before it)
	Damage  []string
	Folded  int // fold, cut: entries
	Leaves  int // cut
	Branch  int // cut: branches
}

func (s *Server) tree(w http.ResponseWriter, r *http.Request) {
	arg, err := s.sessionArg(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	full := r.URL.Query().Get("full") == "1"
	var t *archive.Tree
	err = s.fresh(r, func() (err error) {
		t, err = s.a.Tree(r.Context(), arg, archive.TreeOptions{Full: full})
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := treeView{page: page{Title: title(t.Session), Kind: "tree", Session: t.Session.SessionID}, S: t.Session, Arg: arg,
		File: r.URL.Query().Get("file"), Duplicates: t.Duplicates, Cycles: -1, Shown: t.Shown, Total: len(t.Entries),
		Folded: t.Folded, Cut: t.Cut, Full: full}
	v.FoldHref = sessionHref(v.S.SessionID, v.File)
	v.FullHref = v.FoldHref + "?full=1"
	if v.File != "" {
		v.FullHref = v.FoldHref + "&full=1"
	}
	if t.Session.Diagnostics > 0 {
		if v.Diagnostics, err = s.a.Diagnostics(r.Context(), t.Session); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	add := func(root int) {
		first := true
		t.Rows(root, func(tr archive.TreeRow) {
			v.Rows = append(v.Rows, rowOf(t, tr, first))
			first = false
		})
	}
	for _, root := range t.Roots {
		add(root)
	}
	if len(t.Cycles) > 0 {
		v.Cycles = len(v.Rows)
		for _, root := range t.Cycles {
			add(root)
		}
	}
	s.render(w, http.StatusOK, "tree", v)
}

// rowOf is the drawn row of tr.
func rowOf(t *archive.Tree, tr archive.TreeRow, root bool) treeRow {
	n := &t.Nodes[tr.Node]
	row := treeRow{Prefix: tr.Prefix(), Root: root}
	switch n.Kind {
	case archive.NodeFold:
		row.Kind, row.Folded = "fold", n.Folded
		return row
	case archive.NodeCut:
		row.Kind, row.Folded, row.Leaves, row.Branch = "cut", n.Folded, n.Leaves, n.Branches
		return row
	}
	e := &t.Entries[n.Entry]
	row.Kind, row.ID, row.Preview, row.Label, row.Active, row.Leaf = "entry", e.EntryID, n.Preview, n.Label, n.Active, n.Leaf
	row.What = e.Type
	if e.Role != nil && e.Type == "message" {
		row.What = *e.Role
	}
	if n.Leaf {
		row.Time = when(e.TsMs)
	}
	parent := ""
	if e.ParentID != nil {
		parent = *e.ParentID
	}
	if n.Missing {
		row.Damage = append(row.Damage, "parent "+parent+" missing")
	}
	switch {
	case n.Cycle && parent == e.EntryID:
		row.Damage = append(row.Damage, "cycle: it is its own parent")
	case n.Cycle:
		row.Damage = append(row.Damage, "cycle: its parent "+parent+" is below it")
	}
	if n.Duplicate {
		row.Damage = append(row.Damage, "duplicate id (line "+strconv.Itoa(e.Line)+")")
	}
	return row
}

// title is a session's name, else "Session <id>".
func title(s *archive.Session) string {
	if s.Name != "" {
		return s.Name
	}
	return "Session " + s.SessionID
}
