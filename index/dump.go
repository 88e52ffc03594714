package index

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
)

// Dump writes a canonical text form of everything the index knows, for
// comparing two indexes of the same files (an index refreshed
// incrementally, or rebuilt, or recovered after a crash, must equal a clean
// build: README "Keeping the index current", "Crashes"). Sessions are named
// by path and entries by (path, seq), never by row ids; what depends on
// when or in which order files were indexed is left out (row ids,
// indexed_at_ms, the doc counter) except a doc number's seconds, which
// search order depends on. Search text is dumped as the full-text index's
// tokens and positions per entry, read through fts5vocab, and a token under
// no entry's doc number is listed as an orphan.
//
// The shape is one line per fact, sorted within each section:
//
//	session <path> <column>=<value> ...
//	entry <path> <seq> <column>=<value> ...
//	diagnostic <path> <line> <offset> <severity> <code> <message>
//	label <path> <target> <label>
//	token <path> <seq> <position> <token>
//	source <kind> <path>
//
// Only for tests and small indexes: it reads every row.
func (d *DB) Dump(ctx context.Context, out io.Writer) error {
	w := bufio.NewWriter(out)
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	sections := []string{
		`SELECT 'session ' || path || ' id=' || session_id || ' dialect=' || dialect || ' version=' || version ||
			' workspace=' || quote(workspace) || ' workspace_key=' || quote(workspace_key) || ' name=' || quote(name) || ' parent=' || quote(parent_session) ||
			' created=' || quote(created_ms) || ' modified=' || quote(modified_ms) || ' entries=' || entries ||
			' leaves=' || leaves || ' lines=' || lines || ' state=' || state || ' active=' || quote(active_leaf) ||
			' duplicate=' || quote(duplicate_id) || ' size=' || file_size || ' mtime=' || file_mtime_ns ||
			' dev=' || file_dev || ' ino=' || file_ino || ' committed=' || committed_len ||
			' head=' || head_crc || ' tail=' || tail_crc || ' resumable=' || resumable ||
			' min_ts=' || quote(min_ts_ms) || ' max_ts=' || quote(max_ts_ms) || ' header=' || quote(header_ms) ||
			' activity=' || quote(activity_ms) || ' first_message=' || quote(first_message)
		FROM sessions ORDER BY path`,
		`SELECT 'entry ' || s.path || ' ' || e.seq || ' id=' || e.entry_id || ' parent=' || quote(e.parent_id) ||
			' type=' || e.type || ' role=' || quote(e.role) || ' ts=' || quote(e.ts_ms) || ' line=' || e.line ||
			' offset=' || e.offset || ' length=' || e.length || ' crc=' || e.crc || ' active=' || e.active ||
			' first_kept=' || quote(e.first_kept) || ' run=' || quote(e.run) || ' pos=' || quote(e.pos) ||
			' doc_seconds=' || (e.doc >> 31)
		FROM entries e JOIN sessions s ON s.sid = e.sid ORDER BY s.path, e.seq`,
		`SELECT 'diagnostic ' || s.path || ' ' || g.line || ' ' || g.offset || ' ' || g.severity || ' ' || g.code || ' ' || g.message
		FROM diagnostics g JOIN sessions s ON s.sid = g.sid ORDER BY s.path, g.line, g.offset, g.severity, g.code, g.message`,
		`SELECT 'label ' || s.path || ' ' || l.target_id || ' ' || l.label
		FROM labels l JOIN sessions s ON s.sid = l.sid ORDER BY s.path, l.target_id`,
		`SELECT 'token ' || coalesce(s.path || ' ' || e.seq, 'orphan doc ' || v.doc) || ' ' || v.offset || ' ' || v.term
		FROM temp.grove_dump_vocab v LEFT JOIN entries e INDEXED BY entries_by_doc ON e.doc = v.doc
		LEFT JOIN sessions s ON s.sid = e.sid
		ORDER BY s.path, e.seq, v.offset, v.term`,
		`SELECT 'source ' || kind || ' ' || path FROM sources ORDER BY kind, path`,
	}
	if _, err := conn.ExecContext(ctx, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.grove_dump_vocab USING fts5vocab(main, entry_text, instance)"); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS temp.grove_dump_vocab")
	for _, q := range sections {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("dump: %w", err)
		}
		for rows.Next() {
			var line sql.NullString
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return fmt.Errorf("dump: %w", err)
			}
			fmt.Fprintln(w, line.String)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("dump: %w", err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("dump: %w", err)
		}
	}
	return w.Flush()
}
