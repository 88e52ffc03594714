package index

import (
	"context"
	"fmt"

	"github.com/grove-sessions/grove/jsonl"
)

// releaseBeforeText is the search text of one batch, bytes, from which
// Batch.flushText returns the Go heap's free memory to the system first: a
// forced collection costs milliseconds, nothing beside binding 8 MB.
const releaseBeforeText = 8 << 20

// Session is one session file as the index stores it (SPEC §6). Times are
// Unix milliseconds; a nil pointer is an unknown time.
type Session struct {
	SID       int64  `db:"sid"`
	Source    string `db:"source"` // the machine (--source) whose file it is (SPEC §10)
	Path      string `db:"path"`
	SessionID string `db:"session_id"`
	Dialect   string `db:"dialect"`
	Version   int    `db:"version"`
	Workspace string `db:"workspace"`
	// WorkspaceKey is Workspace as the workspace rule compares it
	// (WorkspaceKey, SPEC §3.3); Commit sets it, queries do not read it.
	WorkspaceKey  string `db:"workspace_key"`
	Name          string `db:"name"`
	ParentSession string `db:"parent_session"`
	CreatedMs     *int64 `db:"created_ms"`
	ModifiedMs    *int64 `db:"modified_ms"` // SPEC §3.2: ActivityMs, else HeaderMs, else (plain) MaxTsMs, else the file's mtime
	Entries       int    `db:"entries"`
	Leaves        int    `db:"leaves"`
	// RealLeaves counts the leaves with no child of another kind than
	// branch on their paths (SPEC §4.2, migration 12); nil when every leaf
	// is real (a file without kinds, or not read since the migration).
	RealLeaves   *int    `db:"real_leaves"`
	Lines        int     `db:"lines"`
	State        string  `db:"state"`
	ActiveLeaf   *string `db:"active_leaf"`
	DuplicateID  *string `db:"duplicate_id"`
	FileSize     int64   `db:"file_size"`
	FileMtimeNs  int64   `db:"file_mtime_ns"`
	FileDev      int64   `db:"file_dev"`
	FileIno      int64   `db:"file_ino"`
	CommittedLen int64   `db:"committed_len"`
	IndexedAtMs  int64   `db:"indexed_at_ms"`
	// HeadCRC and TailCRC are CRC-32s of the first and the last
	// min(4096, CommittedLen) committed bytes: a file that still has both,
	// on the same device and inode, grew by appending (migration 3).
	HeadCRC   uint32 `db:"head_crc"`
	TailCRC   uint32 `db:"tail_crc"`
	Resumable bool   `db:"resumable"` // a read may go on at CommittedLen (jsonl.Result.Resumable)
	MinTsMs   *int64 `db:"min_ts_ms"` // the earliest entry time; nil when no entry has one
	MaxTsMs   *int64 `db:"max_ts_ms"` // the latest entry time; nil when no entry has one
	HeaderMs  *int64 `db:"header_ms"` // the pi header's time; nil when it has none
	// ActivityMs is the latest time of a user or assistant message with
	// content (jsonl.ActivityTime), nil when none has one; ModifiedMs
	// follows it (SPEC §3.2, migration 5).
	ActivityMs *int64 `db:"activity_ms"`
	// FirstMessage is the first user message's text as `grove sessions`
	// shows it (terminal escapes removed, whitespace runs made one space,
	// at most 200 characters), "" when the session has none; nil when the
	// file was indexed before schema 5 and not read since (SPEC §8).
	FirstMessage *string `db:"first_message"`
	StatKey      int64   `db:"stat_key"`    // StatKey of the file as indexed, 0 when racily clean (see RacyWindowMs)
	Diagnostics  int     `db:"diagnostics"` // filled by queries, not stored
	// Gone is set when the session file is gone and its committed bytes
	// are read from the kept store (SPEC §11) or, in PostgreSQL, the
	// index (MarkGone).
	Gone bool `db:"gone"`
	// KindFacts, set by the reader of a whole file with kinds before
	// Commit, are the kind facts of every entry of the session in file
	// order (jsonl.FactsOf); Commit stores the kinds they decide
	// (storeKinds) and clears them. Nil leaves the kinds as they are.
	KindFacts []jsonl.KindFacts `db:"-"`
}

// Entry is one entry row: the tree edge and where its line is in the file.
// Message bodies are not stored; they are read back by Offset and Length.
type Entry struct {
	Seq      int     `db:"seq"`
	EntryID  string  `db:"entry_id"`
	ParentID *string `db:"parent_id"` // nil for a root
	Type     string  `db:"type"`
	Role     *string `db:"role"`
	TsMs     *int64  `db:"ts_ms"`
	Line     int     `db:"line"`
	Offset   int64   `db:"offset"`
	Length   int     `db:"length"`
	CRC      uint32  `db:"crc"`
	// FirstKept is a compaction's firstKeptEntryId as the reader resolved
	// it (pi version 1: from firstKeptEntryIndex, SPEC §3.2); nil for other
	// entries and for a compaction that keeps none.
	FirstKept *string `db:"first_kept"`
	// Active is set when the entry is on the path from the root to the
	// session's active leaf (`grove search --branch active`).
	Active bool `db:"active"`
	// Side is set for a Claude Code sidechain entry (isSidechain: true),
	// which is the active leaf only when every leaf is one (SPEC §3.4).
	Side bool `db:"side"`
	// CopyCRC tells copies of the entry in other files apart where CRC
	// cannot (jsonl.Rules.CopyCRC, migration 6); 0 when CRC does.
	CopyCRC uint32 `db:"copy_crc"`
	// Kind is the entry's kind as a child of a branch point and PathKind
	// the first kind other than branch on its path from a root (SPEC §4.2,
	// migration 12); nil for branch. Only Leaves and EntriesOf read them;
	// the writer stores them at Commit (storeKinds).
	Kind     *string `db:"kind"`
	PathKind *string `db:"path_kind"`
	// Doc is the entry's rowid in the full-text index, set by Replace.
	Doc int64 `db:"doc"`
	// Text is the entry's search text (SPEC §7, jsonl.AppendSearchText),
	// stored only as tokens; nil for an entry with none.
	Text []byte `db:"-"`
}

// Diagnostic is a stored bad line or warning of a session file. ID, Lines
// and Field are not stored: DB.Diagnostics fills them in from the entries
// and the message.
type Diagnostic struct {
	Severity string `db:"severity"` // "error" or "warning"
	Code     string `db:"code"`
	Line     int    `db:"line"`
	Offset   int64  `db:"offset"`
	Message  string `db:"message"`
	ID       string `db:"-"` // duplicate_id: the duplicated id
	Lines    []int  `db:"-"` // duplicate_id: every line that holds it, file order
	Field    string `db:"-"` // lone_surrogate: the field path inside the line (SPEC §2.9)
}

// Label is the label a pi label entry gives an entry (last one wins).
type Label struct {
	TargetID string `db:"target_id"`
	Label    string `db:"label"`
}

// maxParams bounds the values bound by one statement (SQLite's limit is
// 32,766).
const maxParams = 30000

// Replace stores s with its entries (in file order), diagnostics and
// labels in one transaction, replacing whatever the index held for s.Path
// (SPEC §6): a SessionWriter for rows already in memory. s.CreatedMs is
// taken as the header's time. It returns the session's row id.
func (d *DB) Replace(ctx context.Context, s *Session, entries []Entry, diags []Diagnostic, labels []Label) (int64, error) {
	w, err := d.BeginReplace(ctx, s)
	if err != nil {
		return 0, err
	}
	defer w.Rollback()
	if err := w.AddEntries(ctx, entries); err != nil {
		return 0, err
	}
	if err := w.AddDiagnostics(ctx, diags); err != nil {
		return 0, err
	}
	for _, l := range labels {
		w.SetLabel(l.TargetID, l.Label)
	}
	if err := w.Commit(ctx); err != nil {
		return 0, err
	}
	return s.SID, nil
}

// Remove deletes the session stored for path, if any, in one transaction.
func (d *DB) Remove(ctx context.Context, path string) error {
	tx, err := d.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := d.deleteSession(ctx, tx, path, true); err != nil {
		return err
	}
	return tx.Commit()
}

func (d *DB) deleteSession(ctx context.Context, tx *wtx, path string, bytes bool) error {
	var sids []int64
	mine, args := d.mine("")
	if err := tx.SelectContext(ctx, &sids, "SELECT sid FROM sessions WHERE path = ?"+mine, append([]any{path}, args...)...); err != nil {
		return fmt.Errorf("index %s: find old rows: %w", path, err)
	}
	if d.keepBytes && bytes {
		if _, err := tx.ExecContext(ctx, "DELETE FROM file_bytes WHERE source = ? AND path = ?", d.source, path); err != nil {
			return fmt.Errorf("index %s: delete old committed bytes: %w", path, err)
		}
	}
	for _, sid := range sids {
		if err := d.deleteSID(ctx, tx, sid, path); err != nil {
			return err
		}
	}
	return nil
}

// deleteSID deletes the session sid (its file path) and its rows: entries,
// their search text, diagnostics and labels.
func (d *DB) deleteSID(ctx context.Context, tx *wtx, sid int64, path string) error {
	if _, err := tx.ExecContext(ctx, d.sq("DELETE FROM entry_text WHERE rowid IN (SELECT doc FROM entries WHERE sid = ?)",
		"DELETE FROM entry_text WHERE doc IN (SELECT doc FROM entries WHERE sid = ?)"), sid); err != nil {
		return fmt.Errorf("index %s: delete old search text: %w", path, err)
	}
	for _, q := range []string{"DELETE FROM entries WHERE sid = ?", "DELETE FROM diagnostics WHERE sid = ?",
		"DELETE FROM labels WHERE sid = ?", "DELETE FROM sessions WHERE sid = ?"} {
		if _, err := tx.ExecContext(ctx, q, sid); err != nil {
			return fmt.Errorf("index %s: delete old rows: %w", path, err)
		}
	}
	return nil
}

// docBits is how many low bits of a doc number hold the counter.
const docBits = 31

// DocNumber returns the full-text rowid of an entry with timestamp tsMs
// (Unix milliseconds, clamped to [0, 2^32) seconds) and counter value k:
// (seconds << 31) | (k mod 2^31). Walking doc numbers downwards visits
// entries newest first, to the second.
func DocNumber(tsMs int64, k int64) int64 {
	sec := min(max(tsMs/1000, 0), 1<<32-1)
	return sec<<docBits | k&(1<<docBits-1)
}
