package index

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// What a session writer works out from the entries it added (SPEC §4,
// §6): the first duplicated id and its duplicate_id diagnostics, the number
// of leaves, and the active marks on the path to the active leaf. An
// append does it by index lookups per added entry rather than a pass over
// the session (treeFacts); a whole-file read in Go from the entries' tree
// fields kept as they were added (goTreeFacts), which
// TestTreeFacts_GoEqualsSQL checks against the SQL. Both place each entry
// in its linear run (treeLog.add, migration 8).

// treeFacts updates, for the entries added (seq ≥ base), the session's
// first duplicated id and the diagnostics of every one (SPEC §4 rule 1),
// its number of leaves and the entries' active marks. Each costs index
// lookups per added entry, not a pass over the session, except where the
// new active path leaves the old one low down.
func (w *SessionWriter) treeFacts(ctx context.Context) error {
	s, tx, sid := w.s, w.tx, w.s.SID
	if s.DuplicateID == nil {
		var dup []string
		if err := tx.SelectContext(ctx, &dup, `SELECT n.entry_id FROM entries n
			WHERE n.sid = ?1 AND n.seq >= ?2 AND EXISTS (SELECT 1 FROM entries e INDEXED BY entries_by_id
				WHERE e.sid = ?1 AND e.entry_id = n.entry_id AND e.seq < n.seq)
			ORDER BY n.seq LIMIT 1`, sid, w.base); err != nil {
			return fmt.Errorf("duplicate ids: %w", err)
		}
		if len(dup) > 0 {
			s.DuplicateID = &dup[0]
		}
	}
	if s.DuplicateID != nil {
		if err := w.duplicates(ctx); err != nil {
			return fmt.Errorf("duplicate diagnostics: %w", err)
		}
	}
	// Leaves: an entry is one when no entry names its id as parent. New
	// entries that nobody names are new leaves; old leaves that a new entry
	// names are leaves no more.
	var delta int
	if err := tx.GetContext(ctx, &delta, `SELECT
		(SELECT count(*) FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2 AND NOT EXISTS
			(SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = n.entry_id))
		-
		(SELECT count(*) FROM entries o INDEXED BY entries_by_id
			WHERE o.sid = ?1 AND o.seq < ?2
			AND o.entry_id IN (SELECT n.parent_id FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2 AND n.parent_id IS NOT NULL)
			AND NOT EXISTS (SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = o.entry_id AND c.seq < ?2))`,
		sid, w.base); err != nil {
		return fmt.Errorf("leaves: %w", err)
	}
	s.Leaves += delta
	return w.markActive(ctx)
}

// dupSeconds selects, for every id of the entries at seq ≥ ?2 of session
// ?1 that an earlier entry also has, the seq of its second entry: where its
// duplicate_id diagnostic is.
const dupSeconds = `SELECT (SELECT x.seq FROM entries x INDEXED BY entries_by_id
			WHERE x.sid = ?1 AND x.entry_id = d.entry_id ORDER BY x.seq LIMIT 1 OFFSET 1)
		FROM (SELECT DISTINCT n.entry_id FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2 AND EXISTS
			(SELECT 1 FROM entries e INDEXED BY entries_by_id WHERE e.sid = ?1 AND e.entry_id = n.entry_id AND e.seq < n.seq)) d`

// duplicates writes one duplicate_id diagnostic per id that the added
// entries (seq ≥ base) use again (SPEC §4 rule 1, §6): on the line of the
// id's second entry, naming its lines as jsonl.DuplicateLinesError does
// (at most ten, then how many more). An id that was already duplicated
// before is written again, as an append may add a line to it; ids the
// added entries do not touch keep their rows. Each costs index lookups per
// added entry, not a pass over the session.
func (w *SessionWriter) duplicates(ctx context.Context) error {
	tx, sid := w.tx, w.s.SID
	if w.base > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM diagnostics WHERE sid = ?1 AND code = 'duplicate_id' AND line IN
			(SELECT line FROM entries WHERE sid = ?1 AND seq IN (`+dupSeconds+`))`, sid, w.base); err != nil {
			return err
		}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO diagnostics (sid, seq, severity, code, line, offset, message)
		SELECT ?1, ?3 + row_number() OVER (ORDER BY e.seq) - 1, 'error', 'duplicate_id', e.line, e.offset,
			'entry id "' || e.entry_id || '" is used by more than one entry (lines ' ||
			(SELECT group_concat(CAST(line AS TEXT), ', ') FROM (SELECT line FROM entries INDEXED BY entries_by_id
				WHERE sid = ?1 AND entry_id = e.entry_id ORDER BY seq LIMIT 10) AS l) ||
			coalesce((SELECT ' and ' || (count(*) - 10) || ' more' FROM entries INDEXED BY entries_by_id
				WHERE sid = ?1 AND entry_id = e.entry_id HAVING count(*) > 10), '') ||
			'); every path in this session is ambiguous'
		FROM entries e WHERE e.sid = ?1 AND e.seq IN (`+dupSeconds+`)`, sid, w.base, w.diag)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	w.diag += int(n)
	return nil
}

// activeWalk walks from the entry at seq ?2 towards the root of session ?1,
// each parent taken as the first entry with that id, and stops after the
// first entry already marked active (or at a root, a missing parent, or a
// cycle: UNION drops a row met twice).
const activeWalk = `WITH RECURSIVE up(seq, parent_id, active) AS (
		SELECT seq, parent_id, active FROM entries WHERE sid = ?1 AND seq = ?2
		UNION
		SELECT e.seq, e.parent_id, e.active FROM up CROSS JOIN entries e
			ON e.sid = ?1 AND e.seq = (SELECT min(seq) FROM entries INDEXED BY entries_by_id WHERE sid = ?1 AND entry_id = up.parent_id)
		WHERE up.active = 0 AND up.parent_id IS NOT NULL
	)`

// markActive moves the active marks from the path to the old active leaf
// to the path to the new one (the last entry). The walk from the new leaf
// stops where it meets the old path; only the old path below that point is
// cleared. An append that continues the active branch touches one row.
func (w *SessionWriter) markActive(ctx context.Context) error {
	tx, sid := w.tx, w.s.SID
	mark := activeWalk + " UPDATE entries SET active = 1 WHERE sid = ?1 AND seq IN (SELECT seq FROM up WHERE active = 0)"
	newSeq, oldSeq := w.seq-1, w.base-1
	if mainLeaf(w.s.Dialect) {
		var err error
		if newSeq, oldSeq, err = w.mainActive(ctx); err != nil {
			return fmt.Errorf("active leaf: %w", err)
		}
	}
	if w.oldLeaf == nil { // nothing is marked yet: one walk
		if _, err := tx.ExecContext(ctx, mark, sid, newSeq); err != nil {
			return fmt.Errorf("active path: %w", err)
		}
		return nil
	}
	var meet []int
	if err := tx.SelectContext(ctx, &meet, activeWalk+" SELECT seq FROM up WHERE active = 1", sid, newSeq); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	junction := -1
	if len(meet) > 0 {
		junction = meet[0]
	}
	// The old path from its leaf up to the junction: the entries to clear.
	// The old leaf is the last entry before this writer's (SPEC §4: file
	// order). With no junction (the new leaf is on another root) the walk
	// goes to the old root: still the path's length, never the session's
	// size.
	const oldWalk = `WITH RECURSIVE old(seq, entry_id, parent_id) AS (
			SELECT seq, entry_id, parent_id FROM entries WHERE sid = ?1 AND seq = ?2 AND seq != ?3 AND active = 1
			UNION
			SELECT e.seq, e.entry_id, e.parent_id FROM old CROSS JOIN entries e
				ON e.sid = ?1 AND e.seq = (SELECT min(seq) FROM entries INDEXED BY entries_by_id WHERE sid = ?1 AND entry_id = old.parent_id)
			WHERE e.seq != ?3 AND e.active = 1
		)`
	// Above the junction the new path is the old one, unless the old path
	// ends in a cycle through the junction: then the walk up from the
	// junction comes back into the entries below it, which an active entry
	// outside them names as parent.
	// It is not either when an added entry is the parent an entry of the
	// old path named but did not have: the path above the junction grew.
	// One or two index lookups per added entry tell. In either case the
	// whole old path is cleared and the new one marked from its leaf (the
	// path's length, and only then).
	var grew, cycle bool
	if err := tx.GetContext(ctx, &grew, `SELECT EXISTS (SELECT 1 FROM entries n WHERE n.sid = ?1 AND n.seq >= ?2
			AND EXISTS (SELECT 1 FROM entries a INDEXED BY entries_by_parent WHERE a.sid = ?1 AND a.parent_id = n.entry_id AND a.seq < ?2 AND a.active = 1)
			AND NOT EXISTS (SELECT 1 FROM entries o INDEXED BY entries_by_id WHERE o.sid = ?1 AND o.entry_id = n.entry_id AND o.seq < ?2))`, sid, w.base); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	if !grew {
		if err := tx.GetContext(ctx, &cycle, oldWalk+` SELECT EXISTS (SELECT 1 FROM old o
				CROSS JOIN entries c INDEXED BY entries_by_parent ON c.sid = ?1 AND c.parent_id = o.entry_id
				WHERE c.active = 1 AND c.seq NOT IN (SELECT seq FROM old))`, sid, oldSeq, junction); err != nil {
			return fmt.Errorf("active path: %w", err)
		}
	}
	if grew || cycle {
		junction = -1
	}
	if _, err := tx.ExecContext(ctx, oldWalk+" UPDATE entries SET active = 0 WHERE sid = ?1 AND seq IN (SELECT seq FROM old)", sid, oldSeq, junction); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	// The same walk again: it stops at the junction, still marked.
	if _, err := tx.ExecContext(ctx, mark, sid, newSeq); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	return nil
}

// mainActive finds the active leaf of a session whose agent takes the last
// leaf that is no sidechain (agent.LastMainLeaf: Claude Code, SPEC §3.4):
// the leaf on the highest line among those that are not sidechains, else
// the leaf on the highest line. It walks back from the last entry and stops at the
// first such leaf, which is almost always the last entry itself. It
// returns that leaf's seq, sets the session's ActiveLeaf, and gives the seq
// of the old active leaf (-1 when there was none).
func (w *SessionWriter) mainActive(ctx context.Context) (newSeq, oldSeq int, err error) {
	const leaf = `SELECT seq, entry_id FROM entries n WHERE n.sid = ?1 AND n.side <= ?2 AND NOT EXISTS
		(SELECT 1 FROM entries c INDEXED BY entries_by_parent WHERE c.sid = ?1 AND c.parent_id = n.entry_id)
		ORDER BY n.seq DESC LIMIT 1`
	var rows []struct {
		Seq int    `db:"seq"`
		ID  string `db:"entry_id"`
	}
	for side := 0; side <= 1 && len(rows) == 0; side++ {
		if err := w.tx.SelectContext(ctx, &rows, leaf, w.s.SID, side); err != nil {
			return 0, 0, err
		}
	}
	newSeq = w.seq - 1 // a session of cycles only has no leaf: the last entry, as for pi
	if len(rows) > 0 {
		newSeq = rows[0].Seq
		w.s.ActiveLeaf = &rows[0].ID
	}
	oldSeq = -1
	if w.oldLeaf != nil {
		var seqs []int
		if err := w.tx.SelectContext(ctx, &seqs, `SELECT seq FROM entries INDEXED BY entries_by_id WHERE sid = ? AND entry_id = ? AND seq < ? ORDER BY seq LIMIT 1`, w.s.SID, *w.oldLeaf, w.base); err != nil {
			return 0, 0, err
		}
		if len(seqs) > 0 {
			oldSeq = seqs[0]
		}
	}
	return newSeq, oldSeq, nil
}

// sqlTreeFacts makes Commit work the tree facts out in SQL (treeFacts)
// even for a whole-file read: the property test compares both ways.
var sqlTreeFacts = false

// treeNode is what Commit needs of an entry to work out the tree facts of
// a whole-file read in Go: not its text, not its other columns. Its seq is
// its index in treeLog.nodes.
type treeNode struct {
	id, parent string
	root       bool // no parent id
	side       bool
	line       int
	offset     int64
}

// treeLog keeps what a writer needs of the entries it added to place them
// in linear runs (migration 8): the seq of the first entry with each id,
// the ids named as a parent, and each added entry's run and pos. For a
// writer that started from an empty session (Replace, whole) it also keeps
// the tree fields of every entry (SPEC §4, §6), so that Commit works out
// the duplicated ids, the leaves and the active path in Go, with no query
// over the rows just written.
type treeLog struct {
	whole  bool
	base   int
	nodes  []treeNode      // whole only
	first  map[string]int  // id -> seq of the first added entry with it
	named  map[string]bool // ids some added entry names as its parent
	run    []int           // run of the entry at seq base+i
	pos    []int
	legacy bool                    // the session's stored rows have no runs (indexed before migration 8): neither do the new
	stored map[string]storedParent // an append: what the index holds of the ids looked up
}

// storedParent is the first stored entry with an id, for an append.
type storedParent struct {
	found    bool
	run, pos int
	named    bool // a stored entry names the id as its parent
}

func newTreeLog(whole bool, base int) *treeLog {
	return &treeLog{whole: whole, base: base, first: map[string]int{}, named: map[string]bool{}}
}

// add places entries, whose Seq is set, in file order into runs. lookup
// (nil for a whole read) says what the index already holds of a parent id.
func (t *treeLog) add(entries []Entry, lookup func(id string) (storedParent, error)) error {
	for i := range entries {
		e := &entries[i]
		run, pos := e.Seq, 0
		if e.ParentID != nil {
			p := *e.ParentID
			var par storedParent
			if lookup != nil {
				var err error
				if par, err = lookup(p); err != nil {
					return err
				}
			}
			if !par.found { // the first entry with the id is an added one, if any
				if f, ok := t.first[p]; ok {
					par = storedParent{found: true, run: t.run[f-t.base], pos: t.pos[f-t.base], named: par.named}
				}
			}
			if par.found && !par.named && !t.named[p] {
				run, pos = par.run, par.pos+1
			}
			t.named[p] = true
		}
		t.run = append(t.run, run)
		t.pos = append(t.pos, pos)
		if _, ok := t.first[e.EntryID]; !ok {
			t.first[e.EntryID] = e.Seq
		}
		if t.whole {
			n := treeNode{id: e.EntryID, root: e.ParentID == nil, side: e.Side, line: e.Line, offset: e.Offset}
			if e.ParentID != nil {
				n.parent = *e.ParentID
			}
			t.nodes = append(t.nodes, n)
		}
	}
	return nil
}

// runOf is the run and pos columns of the entry at seq: NULL for a
// session indexed before migration 8.
func (t *treeLog) runOf(seq int) (run, pos any) {
	if t.legacy {
		return nil, nil
	}
	return t.run[seq-t.base], t.pos[seq-t.base]
}

// lookupStored is an append's lookup for treeLog.add: the first stored
// entry of the session with id, and whether a stored entry names id as
// its parent, each one index lookup, remembered for the writer.
func (w *SessionWriter) lookupStored(ctx context.Context) func(id string) (storedParent, error) {
	return func(id string) (storedParent, error) {
		t := w.tree
		if p, ok := t.stored[id]; ok {
			return p, nil
		}
		var p storedParent
		var rows []struct {
			Run *int `db:"run"`
			Pos *int `db:"pos"`
		}
		if err := w.tx.SelectContext(ctx, &rows, `SELECT run, pos FROM entries INDEXED BY entries_by_id
			WHERE sid = ? AND entry_id = ? AND seq < ? ORDER BY seq LIMIT 1`, w.s.SID, id, w.base); err != nil {
			return p, fmt.Errorf("runs: %w", err)
		}
		if len(rows) > 0 && rows[0].Run != nil && rows[0].Pos != nil {
			p.found, p.run, p.pos = true, *rows[0].Run, *rows[0].Pos
		}
		var named int
		if err := w.tx.GetContext(ctx, &named, `SELECT count(*) FROM (SELECT 1 FROM entries INDEXED BY entries_by_parent
			WHERE sid = ? AND parent_id = ? AND seq < ? LIMIT 1) AS x`, w.s.SID, id, w.base); err != nil {
			return p, fmt.Errorf("runs: %w", err)
		}
		p.named = named > 0
		if t.stored == nil {
			t.stored = map[string]storedParent{}
		}
		t.stored[id] = p
		return p, nil
	}
}

// goTreeFacts is treeFacts for a writer from Replace, worked out from the
// treeLog: the same first duplicated id, duplicate_id diagnostics (message,
// line, offset and seq numbering byte for byte), leaf count, active leaf
// (agent.LastMainLeaf: SPEC §3.4) and active marks as the SQL gives, written with one
// INSERT of the diagnostics and one UPDATE per 10,000 entries of the
// active path.
func (w *SessionWriter) goTreeFacts(ctx context.Context) error {
	t, s, tx, sid := w.tree, w.s, w.tx, w.s.SID
	// Duplicated ids in the order of their second entries, with every line.
	var order []int // seqs of the second entries
	var lines map[string][]int
	for seq, n := range t.nodes {
		f := t.first[n.id]
		if f == seq {
			continue
		}
		if lines == nil {
			lines = map[string][]int{}
		}
		if _, ok := lines[n.id]; !ok {
			order = append(order, seq)
			lines[n.id] = []int{t.nodes[f].line}
		}
		lines[n.id] = append(lines[n.id], n.line)
	}
	if len(order) > 0 {
		s.DuplicateID = ptr(t.nodes[order[0]].id)
		diags := make([]Diagnostic, len(order))
		for k, seq := range order {
			n := &t.nodes[seq]
			diags[k] = Diagnostic{Severity: "error", Code: "duplicate_id", Line: n.line, Offset: n.offset, Message: dupMessage(n.id, lines[n.id])}
		}
		if err := w.AddDiagnostics(ctx, diags); err != nil {
			return fmt.Errorf("duplicate diagnostics: %w", err)
		}
	}
	// Leaves: the entries whose id no entry names as parent.
	leaves := 0
	for _, n := range t.nodes {
		if !t.named[n.id] {
			leaves++
		}
	}
	s.Leaves = leaves
	leaf, path := t.active(mainLeaf(s.Dialect))
	if leaf >= 0 {
		s.ActiveLeaf = ptr(t.nodes[leaf].id)
	}
	if w.held != nil { // PostgreSQL: the rows go in with their marks
		for _, seq := range path {
			w.held[seq-w.base].Active = true
		}
		err := w.insertEntries(ctx, w.held)
		w.held = nil
		return err
	}
	return markSeqs(ctx, tx, sid, path)
}

// active gives the active leaf of a whole session (-1: the last entry,
// as AddEntries set it) and the seqs of the path to it, leaf first: the
// last entry; with main (an agent whose active leaf is the last leaf that
// is no sidechain, agent.LastMainLeaf: Claude Code, SPEC §3.4) the last
// leaf that is not a sidechain, else the last leaf, else the last entry. The path goes from
// the leaf up, each parent the first entry with its id, until a root, a
// missing parent or an entry met again (SPEC §4).
func (t *treeLog) active(main bool) (leaf int, path []int) {
	leaf, start := -1, len(t.nodes)-1
	if main {
		for side := 0; side <= 1 && leaf < 0; side++ {
			for seq := len(t.nodes) - 1; seq >= 0; seq-- {
				n := &t.nodes[seq]
				if !t.named[n.id] && (side == 1 || !n.side) {
					leaf = seq
					break
				}
			}
		}
		if leaf >= 0 {
			start = leaf
		}
	}
	on := map[int]bool{}
	for seq := start; seq >= 0; {
		path = append(path, seq)
		on[seq] = true
		n := &t.nodes[seq]
		if n.root {
			break
		}
		p, ok := t.first[n.parent]
		if !ok || on[p] {
			break
		}
		seq = p
	}
	return leaf, path
}

// Tree gives what the writer stores of a whole session's tree, for
// verify to check the stored rows against: each entry's run and pos
// (migration 8) and the seqs of the path to the active leaf, leaf first
// (the entries it marks active). entries are in file order; Seq, EntryID,
// ParentID and Side are read; dialect decides the active leaf (SPEC §3.4).
func Tree(entries []Entry, dialect string) (run, pos, active []int) {
	t := wholeLog(entries)
	_, active = t.active(mainLeaf(dialect))
	return t.run, t.pos, active
}

func wholeLog(entries []Entry) *treeLog {
	t := newTreeLog(true, 0)
	t.add(entries, nil) // no lookup: no error
	return t
}

// markSeqs sets active = 1 on the entries of session sid at seqs. The
// seqs are bound as one JSON array, so that one prepared statement serves
// every session (literal seqs made a statement per session, each kept
// prepared: hundreds of MB of SQLite's memory on a 1 GB corpus).
func markSeqs(ctx context.Context, tx *wtx, sid int64, seqs []int) error {
	b := make([]byte, 0, 8*len(seqs)+2)
	b = append(b, '[')
	for i, q := range seqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(q), 10)
	}
	b = append(b, ']')
	q := tx.d.sq("UPDATE entries SET active = 1 WHERE sid = ? AND seq IN (SELECT value FROM json_each(?))",
		"UPDATE entries SET active = 1 WHERE sid = ? AND seq IN (SELECT CAST(v AS INTEGER) FROM jsonb_array_elements_text(CAST(? AS jsonb)) AS v)")
	if _, err := tx.ExecContext(ctx, q, sid, string(b)); err != nil {
		return fmt.Errorf("active path: %w", err)
	}
	return nil
}

// dupMessage is the text of a duplicate_id diagnostic as the SQL in
// duplicates writes it: at most ten lines, then how many more.
func dupMessage(id string, lines []int) string {
	var b strings.Builder
	b.WriteString(`entry id "` + id + `" is used by more than one entry (lines `)
	for i, l := range lines[:min(len(lines), 10)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l))
	}
	if len(lines) > 10 {
		fmt.Fprintf(&b, " and %d more", len(lines)-10)
	}
	b.WriteString("); every path in this session is ambiguous")
	return b.String()
}

// mainLeaf reports whether a session of dialect d takes as its active leaf
// the last leaf that is no sidechain (its agent's Traits.ActiveLeaf is
// agent.LastMainLeaf: Claude Code, SPEC §3.4) rather than its last entry.
func mainLeaf(d string) bool {
	return agent.Of(jsonl.Dialect(d)).Traits().ActiveLeaf == agent.LastMainLeaf
}
