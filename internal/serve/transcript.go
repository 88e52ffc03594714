package serve

import (
	"bufio"
	"bytes"
	"html/template"
	"log"
	"net/http"
	"net/url"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
)

// PageEntries is how many entries of a path one transcript page shows at
// most: a longer path is paged, the page holding the leaf first (SPEC §9).
const PageEntries = 1000

// transcriptView is the head and foot of /s/{session}/{leaf}; the entries
// between them are archive's HTML fragment.
type transcriptView struct {
	page
	S            *archive.Session
	File         string
	Leaf         string
	Active       bool // the leaf is the session's active leaf
	IsLeaf       bool // no entry names it as parent
	Entries      int  // on the path
	From         int  // 1-based, the first entry shown
	To           int  // the last shown
	Earlier      string
	Later        string
	First        string // the first page (the root's)
	Last         string // the page with the leaf
	Next         []branchView
	NextMore     int // branches below the last entry not listed
	BranchPoints int // on the path
	TreeURL      string
	Resume       resumeView // the command that goes on from Leaf
	// OffAt is the first entry of the path that is not on the path to the
	// session's active leaf (SPEC §4.2: the path is an abandoned branch
	// from there on), "" when the path is the active one or the active
	// leaf's path is broken; OffAfter is the last entry the two paths
	// share ("" when they share none), OffCount how many entries are off.
	OffAt, OffAfter string
	OffCount        int
	ActiveHref      string // the active leaf's transcript, when OffAt is set
	// Artifact is the kind of the artifact the path ends on (SPEC §4.2:
	// parallel, progress, replay, command) when its last entry is on one,
	// else "": then the path off the active path is an abandoned branch.
	Artifact string
}

// branchView is one branch at a branch point, or one way the path goes on.
type branchView struct {
	ID      string
	Href    string
	Leaf    string
	Leaves  int
	Preview string
	OnPath  bool
	Active  bool // on the path to the session's active leaf
}

func (s *Server) transcript(w http.ResponseWriter, r *http.Request) {
	arg, err := s.sessionArg(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ctx := r.Context()
	var t *archive.Transcript
	err = s.fresh(r, func() (err error) {
		t, err = s.a.Transcript(ctx, arg, r.PathValue("leaf"))
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := t.Path()
	points, next, err := s.a.PathBranchPoints(ctx, p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	file := r.URL.Query().Get("file")
	sid := p.Session.SessionID
	n := len(p.Entries)
	v := transcriptView{page: page{Title: title(p.Session), Sub: p.Leaf, Kind: "transcript", Session: sid}, S: p.Session, File: file,
		Leaf: p.Leaf, Entries: n, IsLeaf: len(next) == 0, BranchPoints: len(points), TreeURL: sessionHref(sid, file)}
	v.Active = p.Session.ActiveLeaf != nil && *p.Session.ActiveLeaf == p.Leaf
	v.Resume = s.resumeOf(ctx, p)
	onActive, off, err := s.activeOf(r, arg, p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if off >= 0 {
		v.OffAt, v.OffCount, v.ActiveHref = p.Entries[off].EntryID, n-off, entryHref(sid, *p.Session.ActiveLeaf, file)
		if off > 0 {
			v.OffAfter = p.Entries[off-1].EntryID
		}
		if v.Artifact, err = s.a.PathKind(ctx, p.Session, p.Entries[n-1].Seq); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	from, end := v.pageOf(p, r.URL.Query().Get("at"))
	for _, c := range next[:min(len(next), 2*archive.PreviewSiblings+1)] {
		v.Next = append(v.Next, s.branch(sid, file, c, onActive))
	}
	v.NextMore = len(next) - len(v.Next)
	boundary, err := s.a.ContextStart(ctx, p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	after := s.navAfter(p, points, &v, onActive, off, boundary)
	s.writeTranscript(w, r, t, &v, from, end, after)
}

// pageOf sets v's page of the path p (the PageEntries entries holding
// the entry id, else the leaf's; pages are cut back from the leaf, so the
// leaf's page is always a full one) and its links to the pages around
// it; from and end are the page's entries, end one past its last.
func (v *transcriptView) pageOf(p *archive.Path, id string) (from, end int) {
	n := len(p.Entries)
	at := n - 1
	if id != "" {
		for i, e := range p.Entries {
			if e.EntryID == id {
				at = i
				break
			}
		}
	}
	end = n - ((n-1-at)/PageEntries)*PageEntries // one past the page's last entry
	from = max(end-PageEntries, 0)
	v.From, v.To = from+1, end
	file, sid := v.File, p.Session.SessionID
	page := func(i int) string { // the page holding entry i
		q := url.Values{}
		if file != "" {
			q.Set("file", file)
		}
		if i != n-1 {
			q.Set("at", p.Entries[i].EntryID)
		}
		h := "/s/" + segment(sid) + "/" + segment(p.Leaf)
		if len(q) > 0 {
			h += "?" + q.Encode()
		}
		return h
	}
	if from > 0 {
		v.Earlier, v.First = page(from-1), page(0)
	}
	if end < n {
		v.Later, v.Last = page(end), page(n-1)
	}
	return from, end
}

// navAfter is the HTML after entry i of the path p on the page of v: the
// branch boxes of a branch point there (points), the mark where the path
// leaves the active one (off, -1 for none) and the compaction boundary
// (the entry boundary starts the context).
func (s *Server) navAfter(p *archive.Path, points []archive.PathBranchPoint, v *transcriptView, onActive map[string]bool, off, boundary int) func(i int) template.HTML {
	byAt := map[int]archive.PathBranchPoint{}
	for _, b := range points {
		byAt[b.At] = b
	}
	sid, file := p.Session.SessionID, v.File
	var nav bytes.Buffer
	after := func(i int) template.HTML {
		nav.Reset()
		if b, ok := byAt[i]; ok {
			bv := branchPointView{At: p.Entries[i].EntryID, Index: len(byAt), Tree: v.TreeURL}
			here := 0
			for k, c := range b.Branches {
				if c.OnPath {
					here = k
				}
			}
			lo, hi := max(here-archive.PreviewSiblings, 0), min(here+archive.PreviewSiblings+1, len(b.Branches))
			bv.Before, bv.After, bv.All = lo, len(b.Branches)-hi, len(b.Branches)
			for _, c := range b.Branches[lo:hi] {
				bv.Branches = append(bv.Branches, s.branch(sid, file, c, onActive))
			}
			if err := s.pages["transcript"].ExecuteTemplate(&nav, "branches", bv); err != nil {
				log.Printf("grove serve: branches: %v", err)
			}
		}
		if off >= 0 && i+1 == off {
			if err := s.pages["transcript"].ExecuteTemplate(&nav, "off", *v); err != nil {
				log.Printf("grove serve: off the active path: %v", err)
			}
		}
		if i+1 == boundary {
			if err := s.pages["transcript"].ExecuteTemplate(&nav, "boundary", p.Entries[i+1].EntryID); err != nil {
				log.Printf("grove serve: boundary: %v", err)
			}
		}
		return template.HTML(nav.String()) // made by html/template: escaped
	}
	return after
}

// writeTranscript writes the page of v: its head, the entries from to end
// of t rendered as export renders them (after each, after's HTML), its
// foot. A HEAD request gets the headers only; a rendering error after the
// head is written is shown in the page.
func (s *Server) writeTranscript(w http.ResponseWriter, r *http.Request, t *archive.Transcript, v *transcriptView, from, end int, after func(int) template.HTML) {
	var head, foot bytes.Buffer
	if err := s.pages["transcript"].ExecuteTemplate(&head, "head", *v); err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	vw := newVisibleHTML(w)
	defer vw.Close()
	bw := bufio.NewWriterSize(vw, 64<<10)
	bw.Write(head.Bytes())
	if err := t.HTMLFragment(bw, archive.Fragment{From: from, To: end, Anchor: "entry-", After: after}); err != nil {
		if r.Context().Err() != nil {
			return
		}
		s.pages["transcript"].ExecuteTemplate(bw, "broken", err.Error())
	}
	if err := s.pages["transcript"].ExecuteTemplate(&foot, "foot", *v); err != nil {
		log.Printf("grove serve: transcript foot: %v", err)
	}
	bw.Write(foot.Bytes())
	bw.Flush()
}

// branchPointView is the navigation after a branch point on the path.
type branchPointView struct {
	At       string
	Index    int
	Branches []branchView // the archive.PreviewSiblings on each side of the path's, at most
	Before   int          // branches left out before them
	After    int          // and after
	All      int
	Tree     string
}

// activeOf is the set of the entry ids on the path to the session's
// active leaf, and the index in p of the first entry of p not in it: -1
// when p is all on it, or when there is no active leaf or its path is
// broken (then nothing is marked). The active leaf's path is read by
// archive.Path, as the CLI's; its errors other than a broken path are
// returned.
func (s *Server) activeOf(r *http.Request, arg string, p *archive.Path) (map[string]bool, int, error) {
	a := p.Session.ActiveLeaf
	if a == nil || *a == p.Leaf {
		return nil, -1, nil
	}
	ap, err := s.a.Path(r.Context(), arg, *a)
	if err != nil {
		switch errs.CodeOf(err) {
		case errs.CodeDuplicateID, errs.CodeMissingParent, errs.CodeCycle, errs.CodeUnknownEntry:
			return nil, -1, nil // no whole active path: nothing to mark
		}
		return nil, -1, err
	}
	on := make(map[string]bool, len(ap.Entries))
	for _, e := range ap.Entries {
		on[e.EntryID] = true
	}
	for i, e := range p.Entries {
		if !on[e.EntryID] {
			return on, i, nil
		}
	}
	return on, -1, nil
}

// branch is the view of a branch: a link to the transcript of its newest
// leaf, at the branch's first entry.
func (s *Server) branch(sid, file string, c archive.Branch, onActive map[string]bool) branchView {
	v := branchView{ID: c.ID, Leaf: c.Leaf, Leaves: c.Leaves, Preview: c.Preview, OnPath: c.OnPath, Active: onActive[c.ID]}
	if c.Leaf != "" {
		q := url.Values{}
		if file != "" {
			q.Set("file", file)
		}
		if c.Leaf != c.ID {
			q.Set("at", c.ID)
		}
		v.Href = "/s/" + segment(sid) + "/" + segment(c.Leaf)
		if len(q) > 0 {
			v.Href += "?" + q.Encode()
		}
		v.Href += "#entry-" + url.PathEscape(c.ID)
	}
	return v
}
