package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// Fork copies in search (docs/search.md "Forks"): the rows that are copies of one
// entry fold into one hit (copyKey), and each hit of a page learns the
// other sessions that hold its entry (AlsoIn) and whether its session id is
// shared (AmbiguousID).

// fillBatch bounds the ids one fillPage statement binds: SQLite refuses
// more than 32,766 variables, and a page may hold any number of hits.
const fillBatch = 500

// SharedSessionIDs is the set of the ids of ids (repeats allowed) that
// more than one indexed session holds: copies of one file, whose id does
// not name one session (SPEC §3.3), so that only a file path does.
func (d *DB) SharedSessionIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	seen := map[string]bool{}
	var list []any
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			list = append(list, id)
		}
	}
	shared := map[string]bool{}
	for lo := 0; lo < len(list); lo += fillBatch {
		part := list[lo:min(len(list), lo+fillBatch)]
		marks := strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")
		var counts []struct {
			ID string `db:"session_id"`
			N  int    `db:"n"`
		}
		if err := d.db.SelectContext(ctx, &counts, `SELECT session_id, count(*) AS n FROM sessions
			WHERE session_id IN (`+marks+`) GROUP BY session_id`, part...); err != nil {
			return nil, fmt.Errorf("session ids: %w", err)
		}
		for _, c := range counts {
			if c.N > 1 {
				shared[c.ID] = true
			}
		}
	}
	return shared, nil
}

// fillPage sets AmbiguousID and (with alsoIn) AlsoIn of a page of hits,
// with one query for each batch of fillBatch hits rather than one per hit:
// per-hit queries cost more than the search itself. The copies are looked
// up by entry id, so the cost grows with the copies read, not with page
// size times copies.
func (d *DB) fillPage(ctx context.Context, hits []Hit, alsoIn bool) error {
	ids := make([]string, len(hits))
	for i := range hits {
		ids[i] = hits[i].SessionID
	}
	shared, err := d.SharedSessionIDs(ctx, ids)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for i := range hits {
		hits[i].AmbiguousID = shared[hits[i].SessionID]
	}
	if !alsoIn {
		return nil
	}
	type copyRow struct {
		EntryID   string `db:"entry_id"`
		TsMs      *int64 `db:"ts_ms"`
		CRC       uint32 `db:"crc"`
		CopyCRC   uint32 `db:"copy_crc"`
		Length    int    `db:"length"`
		SID       int64  `db:"sid"`
		SessionID string `db:"session_id"`
		Path      string `db:"path"`
		Parent    string `db:"parent_session"`
	}
	// byID holds every row of each entry id, ordered by session id, path
	// and source; each id is asked for in one batch only, so the order
	// holds.
	byID := map[string][]copyRow{}
	byCRC := map[uint32][]copyRow{} // the items of SamePayload dialects (Codex), by payload CRC
	var idList, crcList []any
	for i := range hits {
		hits[i].AlsoIn, hits[i].AlsoInFiles = []string{}, []string{}
		if h := &hits[i]; copyRule(h.Dialect) == agent.SamePayload && h.CopyCRC != 0 {
			if _, ok := byCRC[h.CopyCRC]; !ok {
				byCRC[h.CopyCRC] = nil
				crcList = append(crcList, h.CopyCRC)
			}
			continue
		}
		if id := hits[i].EntryID; hits[i].Type != "session" {
			if _, ok := byID[id]; !ok {
				byID[id] = nil
				idList = append(idList, id)
			}
		}
	}
	for lo := 0; lo < len(idList); lo += fillBatch {
		ids := idList[lo:min(len(idList), lo+fillBatch)]
		marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
		var copies []copyRow
		if err := d.db.SelectContext(ctx, &copies, `SELECT e.entry_id, e.ts_ms, e.crc, e.copy_crc, e.length, e.sid, s.session_id, s.path, s.parent_session
			FROM entries e INDEXED BY entries_by_entry_id JOIN sessions s ON s.sid = e.sid
			WHERE e.entry_id IN (`+marks+`) ORDER BY s.session_id, s.path, s.source`, ids...); err != nil {
			return fmt.Errorf("search: fork copies: %w", err)
		}
		for _, c := range copies {
			byID[c.EntryID] = append(byID[c.EntryID], c)
		}
	}
	// A payload CRC is looked up among the sessions of the dialects whose
	// copies keep their payload only.
	for lo := 0; lo < len(crcList); lo += fillBatch {
		crcs := crcList[lo:min(len(crcList), lo+fillBatch)]
		marks := strings.TrimSuffix(strings.Repeat("?,", len(crcs)), ",")
		var copies []copyRow
		if err := d.db.SelectContext(ctx, &copies, `SELECT e.entry_id, e.ts_ms, e.crc, e.copy_crc, e.length, e.sid, s.session_id, s.path, s.parent_session
			FROM entries e INDEXED BY entries_by_copy JOIN sessions s ON s.sid = e.sid
			WHERE e.copy_crc IN (`+marks+`) AND e.copy_crc != 0 AND s.dialect IN (`+payloadDialectsSQL+`) ORDER BY s.session_id, s.path, s.source`, crcs...); err != nil {
			return fmt.Errorf("search: fork copies: %w", err)
		}
		for _, c := range copies {
			byCRC[c.CopyCRC] = append(byCRC[c.CopyCRC], c)
		}
	}
	for i := range hits {
		h := &hits[i]
		if h.Type == "session" {
			continue
		}
		seen := map[int64]bool{}
		rule := copyRule(h.Dialect)
		candidates := byID[h.EntryID]
		if rule == agent.SamePayload && h.CopyCRC != 0 {
			candidates = byCRC[h.CopyCRC]
		}
		for _, c := range candidates {
			same := c.CRC == h.CRC && c.Length == h.Length
			switch {
			case rule == agent.SameMessage && h.CopyCRC != 0:
				same = c.CopyCRC == h.CopyCRC
			case rule == agent.SamePayload && h.CopyCRC != 0:
				same = family(c.SessionID, c.Parent) == family(h.SessionID, h.ParentSession)
			}
			sameTime := (c.TsMs == nil) == (h.TsMs == nil) && (c.TsMs == nil || *c.TsMs == *h.TsMs)
			if c.SID == h.SID || seen[c.SID] || !same || (!sameTime && rule != agent.SamePayload) {
				continue
			}
			seen[c.SID] = true
			h.AlsoIn, h.AlsoInFiles = append(h.AlsoIn, c.SessionID), append(h.AlsoInFiles, c.Path)
			if c.SessionID == h.SessionID {
				h.AmbiguousID = true
			}
		}
	}
	return nil
}

// copyKey is what makes two entries copies of one another: pi's fork
// copies an entry's line as it is.
type copyKey struct {
	id  string
	ts  int64
	crc uint32
	len int
}

// keyOf is what copies of r's entry share (docs/search.md "Forks"), by its
// agent's copy rule (agent.CopyRule): the entry id, the line's CRC-32 and
// length and the time, for files whose copies are byte-identical lines
// (SameLine: pi forks); the uuid, the message's CRC-32 and the time
// (SameMessage: a Claude Code fork re-stamps sessionId); the payload's
// CRC-32 within one family of forked sessions (SamePayload: a Codex fork
// replays its parent's items on other lines with new times).
func keyOf(r *matchRow) copyKey {
	k := copyKey{id: r.EntryID, crc: r.CRC, len: r.Length, ts: -1 << 63}
	if r.TsMs != nil {
		k.ts = *r.TsMs
	}
	switch rule := copyRule(r.Dialect); {
	case r.CopyCRC == 0:
	case rule == agent.SameMessage:
		k.crc, k.len = r.CopyCRC, -1
	case rule == agent.SamePayload:
		k = copyKey{id: r.Dialect + "\x00" + family(r.SessionID, r.Parent), crc: r.CopyCRC, len: -1, ts: -1 << 63}
	}
	return k
}

// payloadDialectsSQL lists, as SQL string literals separated by commas,
// the dialects whose copies keep their payload (agent.SamePayload: Codex):
// their copies are found by payload CRC within a family of sessions, and
// counted once by it (countHits). Dialect names are grove's own constants,
// quoted here as SQL quotes a string.
var payloadDialectsSQL = func() string {
	var out []string
	for _, a := range agent.All {
		if a.Traits().Copies == agent.SamePayload {
			out = append(out, "'"+strings.ReplaceAll(string(a.Dialect()), "'", "''")+"'")
		}
	}
	if out == nil {
		return "NULL" // no dialect: IN (NULL) matches nothing
	}
	return strings.Join(out, ", ")
}()

// copyRule is the copy rule of the agent of dialect d.
func copyRule(d string) agent.CopyRule { return agent.Of(jsonl.Dialect(d)).Traits().Copies }

// family is the session a codex session's copies are shared within: the
// one it was forked or spawned from, else itself.
func family(id, parent string) string {
	if parent != "" {
		return parent
	}
	return id
}

// groupCopies turns rows into hits in their order. Without noDedupe, rows
// that are copies of one entry become one hit, at the place of the first,
// shown from the session created first (then by file path and source):
// the session the others were forked from.
func groupCopies(rows []matchRow, noDedupe bool) []Hit {
	hits := make([]Hit, 0, len(rows))
	from := make([]*matchRow, 0, len(rows)) // the row each hit shows
	at := map[copyKey]int{}
	for i := range rows {
		r := &rows[i]
		if !noDedupe {
			k := keyOf(r)
			if j, seen := at[k]; seen {
				if createdBefore(r, from[j]) {
					score := hits[j].Score
					hits[j], from[j] = hitOf(r), r
					hits[j].Score = score
				}
				continue
			}
			at[k] = len(hits)
		}
		hits, from = append(hits, hitOf(r)), append(from, r)
	}
	return hits
}

func hitOf(r *matchRow) Hit {
	h := Hit{SID: r.SID, SessionID: r.SessionID, Workspace: r.Workspace, Path: r.Path, Source: r.Source, Entry: r.Entry, ByID: r.byID,
		Dialect: r.Dialect, ParentSession: r.Parent}
	if r.Score != nil {
		h.Score = *r.Score
	}
	return h
}

// createdBefore orders sessions by creation time (unknown last), then
// path, then source.
func createdBefore(a, b *matchRow) bool {
	switch {
	case a.CreatedMs != nil && b.CreatedMs != nil && *a.CreatedMs != *b.CreatedMs:
		return *a.CreatedMs < *b.CreatedMs
	case (a.CreatedMs == nil) != (b.CreatedMs == nil):
		return a.CreatedMs != nil
	case a.Path != b.Path:
		return a.Path < b.Path
	}
	return a.Source < b.Source
}
