package index

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// SearchParams narrow and order a search (SPEC §8 `search`).
type SearchParams struct {
	Query *Query
	// Workspace is a clean absolute directory: sessions whose workspace is
	// it or below it (UnderWorkspace, SPEC §3.3); "" means all.
	Workspace string
	Dialect   string   // only sessions of this dialect; "" means all
	Source    string   // only sessions of this source (SPEC §10); "" means all
	SIDs      []int64  // only these sessions; empty means all
	Roles     []string // message roles (user, assistant, toolResult, ...); empty means all
	Types     []string // entry types (message, compaction, ...); empty means all
	Since     *int64   // only entries at or after this Unix time in milliseconds
	Until     *int64   // only entries before this Unix time in milliseconds
	Active    bool     // only entries on their session's active path
	Abandoned bool     // only entries off it on real branches (SPEC §4.2); with Active, none
	// Relevance ranks by BM25 among the newest RankWindow matches;
	// otherwise hits come newest first.
	Relevance bool
	Limit     int // hits to return, 1 or more (the caller's default: archive.DefaultSearchLimit)
	Offset    int // hits to skip
	NoDedupe  bool
}

// Hit is one search result: an entry, or with Type "session" a session
// whose id the query names.
type Hit struct {
	SID       int64
	SessionID string
	Workspace string
	Path      string // the session file
	Source    string // the machine whose file it is (SPEC §10)
	Entry            // the entry's row; Text is unset
	Score     float64
	// AlsoIn lists the ids of the other sessions that hold a byte-identical
	// copy of the entry (same id, timestamp and line): pi copies the path of
	// a session into a forked one. Empty with NoDedupe. AlsoInFiles are
	// their files, in the same order.
	AlsoIn      []string
	AlsoInFiles []string
	// Dialect and ParentSession are the session's (copies of a codex item
	// are looked for within one family of forked sessions).
	Dialect       string
	ParentSession string
	// ByID is set when the hit was found because the query is its entry id
	// or a unique prefix of it, not by its text.
	ByID bool
	// AmbiguousID is set when another indexed session has the same session
	// id, so that only the file path names this one.
	AmbiguousID bool
}

// SearchResult is a page of hits and how many there are in all.
type SearchResult struct {
	Hits []Hit
	// Total counts the hits, fork copies once (docs/search.md "Totals"). It is
	// exact (Exact) when there are at most max(CountLimit, Offset+Limit)
	// hits; otherwise it is that bound plus one, a lower bound. It depends on
	// the query, the filters and how far the page reaches, never on the
	// order: it never goes down as Offset grows, is the same for every
	// Limit while Offset+Limit <= CountLimit, and is always at least
	// Offset+len(Hits).
	Total int
	Exact bool
}

// CountLimit bounds how many hits a search counts when the page asked for
// reaches less far: beyond it the total is reported as a lower bound, so
// a query for a common word costs the same as one for a rare word.
const CountLimit = 250

// RankWindow is how many of the newest matches `--sort relevance` ranks.
const RankWindow = 10000

type matchRow struct {
	Entry
	SID       int64    `db:"sid"`
	SessionID string   `db:"session_id"`
	Workspace string   `db:"workspace"`
	Path      string   `db:"path"`
	Source    string   `db:"source"`
	CreatedMs *int64   `db:"created_ms"`
	Dialect   string   `db:"dialect"`
	Parent    string   `db:"parent_session"`
	Score     *float64 `db:"score"`
	byID      bool
}

const hitCols = `e.sid, e.seq, e.entry_id, e.parent_id, e.type, e.role, e.ts_ms, e.line, e.offset, e.length, e.crc, e.doc, e.active, e.copy_crc,
	s.session_id, s.workspace, s.path, s.created_ms, s.dialect, s.parent_session, s.source`

// Search runs p. Entry hits for an id-like query (an entry id, or a unique
// prefix of one) come first, then full-text hits in the order p asks for.
// Filters apply to both. Total follows the same rule for either order
// (SPEC §7, docs/search.md "Totals"): see SearchResult. Errors are SQLite's,
// wrapped, and one for a Limit under 1.
func (d *DB) Search(ctx context.Context, p SearchParams) (*SearchResult, error) {
	if p.Limit < 1 {
		return nil, fmt.Errorf("search: limit %d: want 1 or more hits", p.Limit)
	}
	where, args := p.filters()
	var rows []matchRow
	if id := p.Query.IDLike; id != "" {
		idRows, err := d.idMatches(ctx, id, where, args)
		if err != nil {
			return nil, err
		}
		rows = append(rows, idRows...)
	}
	idHits := len(groupCopies(rows, p.NoDedupe))
	total, exact := idHits, true
	if m := p.Query.Match(); m != "" {
		// The text count leaves out the entries found by id, which are
		// counted once above even when their text matches too.
		cwhere, cargs := where, args
		if ids := entryIDs(rows); len(ids) > 0 {
			cwhere += " AND e.entry_id NOT IN (" + strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + ")"
			cargs = append(append([]any{}, args...), ids...)
		}
		text, complete, err := d.textMatches(ctx, p, m, where, args)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", p.Query.Raw, err)
		}
		rows = append(rows, text...)
		// Exact up to max(CountLimit, offset+limit) hits, then that plus
		// one: the rule holds even when the newest-first rows happen to be
		// every match, so that either order gives the same total.
		limit := max(CountLimit, p.Offset+p.Limit)
		n := len(groupCopies(excludeIDs(text, rows[:len(rows)-len(text)]), p.NoDedupe))
		if complete || n > limit {
			// Every match was read, or the rows read already hold more
			// hits than are counted: no need to ask SQLite again.
			if exact = n <= limit; !exact {
				n = limit + 1
			}
		} else if n, exact, err = d.countHits(ctx, p, m, cwhere, cargs, limit); err != nil {
			return nil, fmt.Errorf("search %q: count: %w", p.Query.Raw, err)
		}
		total += n
	}
	hits := groupCopies(rows, p.NoDedupe)
	res := &SearchResult{Total: total, Exact: exact}
	if p.Offset >= len(hits) {
		return res, nil
	}
	res.Hits = hits[p.Offset:min(len(hits), p.Offset+p.Limit)]
	if err := d.fillPage(ctx, res.Hits, !p.NoDedupe); err != nil {
		return nil, err
	}
	return res, nil
}

// entryIDs returns the distinct entry ids of rows, as query arguments.
func entryIDs(rows []matchRow) []any {
	seen := map[string]bool{}
	var ids []any
	for _, r := range rows {
		if !seen[r.EntryID] {
			seen[r.EntryID] = true
			ids = append(ids, r.EntryID)
		}
	}
	return ids
}

// excludeIDs returns the rows of text whose entry id is none of byID's.
func excludeIDs(text, byID []matchRow) []matchRow {
	if len(byID) == 0 {
		return text
	}
	ids := map[string]bool{}
	for _, r := range byID {
		ids[r.EntryID] = true
	}
	out := make([]matchRow, 0, len(text))
	for _, r := range text {
		if !ids[r.EntryID] {
			out = append(out, r)
		}
	}
	return out
}

// matchFrom is the FROM and WHERE of a full-text search: the FTS5 table
// walked by rowid (newest first), each match joined to its entry and
// session. CROSS JOIN keeps the FTS table outermost.
const matchFrom = ` FROM entry_text CROSS JOIN entries e INDEXED BY entries_by_doc ON e.doc = entry_text.rowid
	JOIN sessions s ON s.sid = e.sid
	WHERE entry_text MATCH ?`

// matchClause is the FROM and WHERE of a full-text search for query m
// (Query.Match) and its arguments, and the column that orders matches
// newest first: matchFrom in SQLite; in PostgreSQL the entries whose doc
// numbers have matching text rows (Query.pgMatch), walked by entries_by_doc.
func (d *DB) matchClause(p SearchParams, m string) (from string, args []any, order string) {
	if !d.db.pg {
		return matchFrom, []any{m}, "entry_text.rowid"
	}
	cond, args := p.Query.pgMatch("e.doc")
	return ` FROM entries e JOIN sessions s ON s.sid = e.sid WHERE ` + cond, args, "e.doc"
}

// textMatches returns the full-text matches a page needs, in order: enough
// rows that offset+limit hits remain once fork copies are grouped. complete
// says the rows are every match (newest-first order only).
func (d *DB) textMatches(ctx context.Context, p SearchParams, m, where string, args []any) (rows []matchRow, complete bool, err error) {
	want := p.Offset + p.Limit
	from, margs, order := d.matchClause(p, m)
	all := append(margs, args...)
	if p.Relevance {
		// BM25 over the newest RankWindow matches, then the best first,
		// ties as hitTies orders them. (Where the window ends inside one
		// second, which of that second's matches it holds follows the
		// doc numbers, as walking the full-text index in order must.)
		score := "bm25(entry_text)"
		if d.db.pg {
			// PostgreSQL has no BM25: ts_rank of the entry's best chunk,
			// negated, as lower is better.
			score = "-(SELECT max(ts_rank(t.tsv, CAST(? AS tsquery))) FROM entry_text t WHERE t.doc = e.doc)"
			all = append([]any{p.Query.pgTSQuery()}, all...)
		}
		q := `SELECT ` + hitCols + `, r.score FROM (SELECT e.doc AS doc, ` + score + ` AS score` + from + where +
			` ORDER BY ` + order + ` DESC LIMIT ?) r CROSS JOIN entries e INDEXED BY entries_by_doc ON e.doc = r.doc
			JOIN sessions s ON s.sid = e.sid ORDER BY r.score, ` + hitTies + ` LIMIT ?`
		for limit := want*2 + 8; ; {
			rows, err = d.selectRows(ctx, q, append(all, RankWindow, limit)...)
			if err != nil || len(rows) < limit {
				return rows, false, err
			}
			got := len(groupCopies(rows, p.NoDedupe))
			if got >= want {
				return rows, false, nil
			}
			limit = nextLimit(limit, got, want)
		}
	}
	// Read up to CountLimit+1 matches (more when the page reaches further):
	// fewer rows than asked for are all the matches, and then countHits
	// need not run.
	q := `SELECT ` + hitCols + `, NULL AS score` + from + where + ` ORDER BY ` + order + ` DESC LIMIT ?`
	for limit := max(CountLimit+1, want*2+8); ; {
		rows, err = d.selectRows(ctx, q, append(all, limit)...)
		if err != nil {
			return nil, false, err
		}
		if len(rows) < limit {
			orderTies(rows)
			return rows, true, nil
		}
		// The last second read may go on beyond the rows read: only the
		// seconds before it are whole, and only they may give the page.
		whole := lastSecond(rows)
		orderTies(rows[:whole])
		orderTies(rows[whole:])
		got := len(groupCopies(rows[:whole], p.NoDedupe))
		if got >= want {
			return rows, false, nil
		}
		limit = nextLimit(limit, got, want)
	}
}

// hitTies is the order of hits after their rank: newest first, to the
// second as the doc numbers walk (DocNumber) and then to the millisecond
// (an entry without a time, which files its doc number under the time
// before it, at the start of its second), then by session file path, then
// source, then the later line of a session first; orderTies in SQL.
const hitTies = `(e.doc >> 31) DESC, coalesce(e.ts_ms, (e.doc >> 31) * 1000) DESC, s.path, s.source, e.seq DESC`

// orderTies sorts rows, which come newest first by doc number, into the
// order of hits (hitTies). Within one second doc numbers follow the order
// the files were indexed in, which two indexes of the same files need not
// share (SPEC §10: the same answers from SQLite and PostgreSQL); times,
// paths and lines do not depend on it.
func orderTies(rows []matchRow) {
	ms := func(r *matchRow) int64 {
		if r.TsMs != nil {
			return *r.TsMs
		}
		return (r.Doc >> docBits) * 1000
	}
	slices.SortFunc(rows, func(a, b matchRow) int {
		if c := cmp.Compare(b.Doc>>docBits, a.Doc>>docBits); c != 0 {
			return c
		}
		if c := cmp.Compare(ms(&b), ms(&a)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Source, b.Source); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
}

// lastSecond is the index of the first of rows (newest first by doc
// number, at least one) in the second of the last one.
func lastSecond(rows []matchRow) int {
	last := rows[len(rows)-1].Doc >> docBits
	i := len(rows) - 1
	for i > 0 && rows[i-1].Doc>>docBits == last {
		i--
	}
	return i
}

// nextLimit is how many rows the next round of a page fetch reads when
// limit rows held got < want hits: as many as the copies seen so far say
// want hits need, a quarter more, and at least twice limit. Each round
// reads at least twice the last, so the rounds together cost less than
// twice the last, and the estimate keeps the last near the rows needed
// when every hit has many fork copies.
func nextLimit(limit, got, want int) int {
	n := limit * 4
	if got > 0 {
		n = int(min(float64(limit)*float64(want)/float64(got)*1.25, 1<<40))
	}
	return max(n+8, limit*2)
}

// countHits counts the hits of a full-text search, fork copies once (each
// match with NoDedupe), up to limit: it returns (n, true) when there are
// n <= limit, else (limit+1, false). It depends on the query and filters
// only, not on the order or the page, so that every page and either order
// of one search report the same total (docs/search.md "Totals"). SQLite stops
// reading matches at the (limit+1)th distinct one.
func (d *DB) countHits(ctx context.Context, p SearchParams, m, where string, args []any, limit int) (int, bool, error) {
	// The key of keyOf: the line's CRC for byte-identical copies, else the
	// copy CRC (migration 6) within a family of sessions for the dialects
	// whose copies keep their payload (agent.SamePayload), with the entry
	// id and time for the others (agent.SameMessage).
	key := `CASE WHEN e.copy_crc = 0 THEN e.entry_id || char(0) || coalesce(CAST(e.ts_ms AS TEXT), '') || char(0) || e.crc || char(0) || e.length
		ELSE (SELECT CASE WHEN c.dialect IN (` + payloadDialectsSQL + `) THEN c.dialect || char(0) || coalesce(nullif(c.parent_session, ''), c.session_id) || char(0) || e.copy_crc
			ELSE e.entry_id || char(0) || coalesce(CAST(e.ts_ms AS TEXT), '') || char(0) || 'm' || e.copy_crc END FROM sessions c WHERE c.sid = e.sid) END`
	if p.NoDedupe {
		key = `e.doc`
	}
	from, margs, _ := d.matchClause(p, m)
	if p.Workspace == "" && p.Dialect == "" && p.Source == "" { // no session column is needed to count
		from = strings.Replace(from, "JOIN sessions s ON s.sid = e.sid", "", 1)
	}
	st, err := d.stmt(ctx, `SELECT count(*) FROM (SELECT DISTINCT `+key+from+where+` LIMIT ?) AS k`)
	if err != nil {
		return 0, false, err
	}
	var n int
	if err := st.GetContext(ctx, &n, d.db.args(append(append(margs, args...), limit+1))...); err != nil {
		return 0, false, err
	}
	return n, n <= limit, nil
}

// selectRows runs q, whose columns are hitCols and a score, and scans the
// rows by position: sqlx's reflection cost more than the query for the
// 251 rows a common word reads.
func (d *DB) selectRows(ctx context.Context, q string, args ...any) ([]matchRow, error) {
	st, err := d.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	rs, err := st.QueryContext(ctx, d.db.args(args)...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var rows []matchRow
	for rs.Next() {
		var r matchRow
		e := &r.Entry
		if err := rs.Scan(&r.SID, &e.Seq, &e.EntryID, &e.ParentID, &e.Type, &e.Role, &e.TsMs, &e.Line, &e.Offset, &e.Length,
			&e.CRC, &e.Doc, &e.Active, &e.CopyCRC, &r.SessionID, &r.Workspace, &r.Path, &r.CreatedMs, &r.Dialect, &r.Parent, &r.Source, &r.Score); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, rs.Err()
}

// filters returns the SQL conditions of p on e (entries) and s (sessions),
// each starting with " AND ", and their arguments.
func (p *SearchParams) filters() (string, []any) {
	var b strings.Builder
	cond, args := workspaceCond("s.workspace_key", p.Workspace)
	b.WriteString(cond)
	if p.Dialect != "" {
		b.WriteString(" AND s.dialect = ?")
		args = append(args, p.Dialect)
	}
	if p.Source != "" {
		b.WriteString(" AND s.source = ?")
		args = append(args, p.Source)
	}
	in := func(col string, n int) {
		b.WriteString(" AND " + col + " IN (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")")
	}
	if len(p.SIDs) > 0 {
		in("e.sid", len(p.SIDs))
		for _, v := range p.SIDs {
			args = append(args, v)
		}
	}
	if len(p.Roles) > 0 {
		in("e.role", len(p.Roles))
		for _, v := range p.Roles {
			args = append(args, v)
		}
	}
	if len(p.Types) > 0 {
		in("e.type", len(p.Types))
		for _, v := range p.Types {
			args = append(args, v)
		}
	}
	if p.Since != nil {
		b.WriteString(" AND e.ts_ms >= ?")
		args = append(args, *p.Since)
	}
	if p.Until != nil {
		b.WriteString(" AND e.ts_ms < ?")
		args = append(args, *p.Until)
	}
	if p.Active {
		b.WriteString(" AND e.active = 1")
	}
	if p.Abandoned {
		// Off the active path, on no artifact, and no entry of an inline
		// sub-agent run: a sidechain entry of a session whose active leaf
		// is on the main chain (SPEC §3.4) is the run's, not a branch.
		b.WriteString(` AND e.active = 0 AND e.path_kind IS NULL AND (e.side = 0 OR NOT EXISTS (
			SELECT 1 FROM sessions s2 JOIN entries a ON a.sid = s2.sid AND a.entry_id = s2.active_leaf
			WHERE s2.sid = e.sid AND a.side = 0))`)
	}
	return b.String(), args
}

// idMatches returns the entries whose id is id, or, when none is, the
// entries whose id starts with id if that names a single entry (fork
// copies counting once).
func (d *DB) idMatches(ctx context.Context, id, where string, args []any) ([]matchRow, error) {
	q := `SELECT ` + hitCols + `, NULL AS score FROM entries e INDEXED BY entries_by_entry_id
		JOIN sessions s ON s.sid = e.sid WHERE e.entry_id = ?` + where + ` ORDER BY ` + hitTies + ` LIMIT 1000`
	var rows []matchRow
	if err := d.selectCached(ctx, &rows, q, append([]any{id}, args...)...); err != nil {
		return nil, fmt.Errorf("search id %q: %w", id, err)
	}
	for i := range rows {
		rows[i].byID = true
	}
	if len(rows) > 0 || len(id) < 4 {
		return rows, nil
	}
	q = `SELECT ` + hitCols + `, NULL AS score FROM entries e INDEXED BY entries_by_entry_id
		JOIN sessions s ON s.sid = e.sid WHERE e.entry_id > ? AND e.entry_id < ?` + where + ` ORDER BY ` + hitTies + ` LIMIT 64`
	if err := d.selectCached(ctx, &rows, q, append([]any{id, id + "\U0010FFFF"}, args...)...); err != nil {
		return nil, fmt.Errorf("search id prefix %q: %w", id, err)
	}
	if len(groupCopies(rows, false)) != 1 {
		return nil, nil
	}
	for i := range rows {
		rows[i].byID = true
	}
	return rows, nil
}
