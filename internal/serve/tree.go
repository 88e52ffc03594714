package serve

import (
	"net/http"
	"strconv"
	"strings"

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
	// All draws what the agent recorded beside the branches a person made
	// (?all=1, SPEC §4.2); Beside counts those entries when they are left
	// out. AllHref and RealHref are this page with and without them.
	All               bool
	Beside            int
	AllHref, RealHref string
	// Rows of a large tree come TreeRows at a time: this page's first
	// (1-based) and last, of AllRows, with links to the others.
	From, To, AllRows           int
	First, Earlier, Later, Last string
	ActiveHref                  string // the active leaf's transcript
	ActiveLeaf                  string
}

// TreeRows is how many rows of a tree one page draws at most: a session of
// 100,000 entries whose every user message is a row is paged, and only
// the page's previews are read.
const TreeRows = 2000

// treeRow is one drawn row.
type treeRow struct {
	Prefix   string // "│   ├── " as grove tree draws it
	Kind     string // "entry", "fold" or "cut"
	ID       string
	What     string // role of a message, else the type
	Preview  string
	Label    string
	Time     string // a leaf's
	Active   bool
	Leaf     bool
	Root     bool // the first row of a root's tree (a blank line before it)
	Damage   []string
	Folded   int // fold, cut: entries
	Leaves   int // cut
	Branches int // cut: branches
	// BranchKind is the entry's kind as a child of a branch point when it
	// is not "branch" (SPEC §4.2: parallel, progress, replay, command).
	BranchKind string
	node       int // the tree's node, for its preview
}

func (s *Server) tree(w http.ResponseWriter, r *http.Request) {
	arg, err := s.sessionArg(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	full := r.URL.Query().Get("full") == "1"
	all := r.URL.Query().Get("all") == "1"
	var t *archive.Tree
	err = s.fresh(r, func() (err error) {
		t, err = s.a.Tree(r.Context(), arg, archive.TreeOptions{Full: full, NoPreviews: true, All: all})
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := treeView{page: page{Title: title(t.Session), Kind: "tree", Session: t.Session.SessionID}, S: t.Session, Arg: arg,
		File: r.URL.Query().Get("file"), Duplicates: t.Duplicates, Cycles: -1, Shown: t.Shown, Total: len(t.Entries),
		Folded: t.Folded, Cut: t.Cut, Full: full, All: all, Beside: t.Session.Entries - len(t.Entries)}
	base := sessionHref(v.S.SessionID, v.File)
	v.RealHref, v.AllHref = base, withParam(base, "all=1")
	if full {
		v.RealHref, v.AllHref = withParam(v.RealHref, "full=1"), withParam(v.AllHref, "full=1")
	}
	if all {
		base = v.AllHref
		if full {
			base = withParam(sessionHref(v.S.SessionID, v.File), "all=1")
		}
	}
	v.FoldHref, v.FullHref = base, withParam(base, "full=1")
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
	if a := t.Session.ActiveLeaf; a != nil {
		v.ActiveLeaf, v.ActiveHref = *a, entryHref(v.S.SessionID, *a, v.File)
	}
	// The page of rows: ?rows=N starts at row N (1-based).
	from := 0
	if n, err := strconv.Atoi(r.URL.Query().Get("rows")); err == nil && n > 1 {
		from = min(n-1, max(len(v.Rows)-1, 0)) / TreeRows * TreeRows
	}
	to := min(from+TreeRows, len(v.Rows))
	v.AllRows, v.From, v.To = len(v.Rows), from+1, to
	at := func(row int) string {
		h := v.FoldHref
		if full {
			h = v.FullHref
		}
		if row == 0 {
			return h
		}
		sep := "?"
		if strings.Contains(h, "?") {
			sep = "&"
		}
		return h + sep + "rows=" + strconv.Itoa(row+1)
	}
	if from > 0 {
		v.First, v.Earlier = at(0), at(from-TreeRows)
	}
	if to < len(v.Rows) {
		v.Later, v.Last = at(to), at((len(v.Rows)-1)/TreeRows*TreeRows)
	}
	if v.Cycles >= 0 {
		v.Cycles -= from // the cycles' heading is drawn where its row falls
	}
	v.Rows = v.Rows[from:to]
	nodes := make([]int, len(v.Rows))
	for i, row := range v.Rows {
		nodes[i] = row.node
	}
	if err := t.ReadPreviewsOf(t.Session.Path, t.Session.Dialect, archive.TreePreviewWidth, nodes); err != nil {
		s.fail(w, r, err)
		return
	}
	for i := range v.Rows {
		v.Rows[i].Preview = t.Nodes[v.Rows[i].node].Preview
	}
	s.render(w, http.StatusOK, "tree", v)
}

// rowOf is the drawn row of tr.
func rowOf(t *archive.Tree, tr archive.TreeRow, root bool) treeRow {
	n := &t.Nodes[tr.Node]
	row := treeRow{Prefix: tr.Prefix(), Root: root, node: tr.Node}
	switch n.Kind {
	case archive.NodeFold:
		row.Kind, row.Folded = "fold", n.Folded
		return row
	case archive.NodeCut:
		row.Kind, row.Folded, row.Leaves, row.Branches = "cut", n.Folded, n.Leaves, n.Branches
		return row
	}
	e := &t.Entries[n.Entry]
	row.Kind, row.ID, row.Preview, row.Label, row.Active, row.Leaf = "entry", e.EntryID, n.Preview, n.Label, n.Active, n.Leaf
	row.What = e.Type
	if e.Kind != "" && e.Kind != "branch" {
		row.BranchKind = e.Kind
	}
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

// withParam is the link h with the query parameter kv (name=value) added.
func withParam(h, kv string) string {
	if strings.Contains(h, "?") {
		return h + "&" + kv
	}
	return h + "?" + kv
}
