package index

import (
	"context"
	"runtime/debug"
	"slices"
)

// How search text reaches FTS5 in bulk (SPEC §7). FTS5 starts a new
// segment of its index whenever a rowid is not above the one before, at
// every statement savepoint, and whenever its pending terms pass the
// table's hashsize; a segment costs a flush and, later, a merge. So the
// text of a batch is held until the batch commits, then inserted in rowid
// order, one row per statement, outside any savepoint: one segment per
// batch (a prototype measured the savepoint flushes and merges at 30 % of
// a cold index).

// pendingText is one entry's search text waiting for its batch's commit,
// in the form ftsText gives it.
type pendingText struct {
	doc  int64
	text string
}

// holdText is the longest search text, bytes, held until the commit; a
// longer one is stored at once, so that a line of tens of MB is not kept
// twice (SPEC §2.8).
const holdText = 1 << 20

// holdBatchText is the most search text, bytes, the first writer of a
// batch holds before it is stored: a 100 MB session is not held whole.
const holdBatchText = 8 << 20

// insertTextRow is the one statement the held text is stored with.
const insertTextRow = "INSERT INTO entry_text (rowid, text) VALUES (?, ?)"

// holdEntriesText takes the search text of entries: a long text is stored
// now, the others are held in the batch until it commits.
func (b *Batch) holdEntriesText(ctx context.Context, entries []Entry) error {
	for i := range entries {
		e := &entries[i]
		switch n := len(e.Text); {
		case n == 0:
		case n > holdText && b.d.build != nil:
			// Stored in the builder's file now, between its batches: the
			// text may share the line's bytes, which the reader reuses
			// after, and is not copied again into the spool.
			if _, err := b.d.build.db.ExecContext(ctx, insertTextRow, e.Doc, ftsText(e.Text)); err != nil {
				return err
			}
		case n > holdText:
			if err := b.insertText(ctx, e.Doc, ftsText(e.Text)); err != nil {
				return err
			}
		default:
			t := ftsTextOwned(e.Text)
			b.text = append(b.text, pendingText{doc: e.Doc, text: t})
			b.textBytes += len(t)
		}
	}
	// A big file's text is not held whole: it starts its own batch, and
	// the first writer of a batch has no savepoint (its rollback is the
	// batch's), so what it holds may go in now.
	if w := b.w; w != nil && w.sp == "" && b.textBytes >= holdBatchText {
		if err := b.flushText(ctx); err != nil {
			return err
		}
		w.text = 0
	}
	return nil
}

// dropText forgets the held text from the mark'th on: the text of a
// writer rolled back.
func (b *Batch) dropText(mark int) {
	for i := mark; i < len(b.text); i++ {
		b.textBytes -= len(b.text[i].text)
		b.text[i] = pendingText{}
	}
	b.text = b.text[:mark]
}

// flushText stores the held text in rowid order and lets it go.
func (b *Batch) flushText(ctx context.Context) error {
	if len(b.text) == 0 {
		return nil
	}
	if b.textBytes >= releaseBeforeText {
		// SQLite's memory is not Go's: FTS5's pending terms (up to the
		// table's hashsize) come on top of whatever the Go heap holds,
		// garbage included, until the runtime hands it back (SPEC §2.8).
		debug.FreeOSMemory()
	}
	slices.SortFunc(b.text, func(x, y pendingText) int {
		switch {
		case x.doc < y.doc:
			return -1
		case x.doc > y.doc:
			return 1
		}
		return 0
	})
	if b.d.build != nil {
		err := b.d.build.send(b.text) // stored on its own core (build.go)
		b.text, b.textBytes = nil, 0
		return err
	}
	if b.d.db.pg {
		err := b.insertServerText(ctx, b.text)
		b.text, b.textBytes = nil, 0
		return err
	}
	for i := range b.text {
		if err := b.insertText(ctx, b.text[i].doc, b.text[i].text); err != nil {
			return err
		}
		b.text[i] = pendingText{}
	}
	b.text, b.textBytes = nil, 0
	return nil
}

// serverTextCols are the columns of PostgreSQL's entry_text, and how each
// value is bound: integers stand for booleans (conn.args), strings for
// tsvectors.
var serverTextCols, serverTextExprs = []string{"doc", "chunk", "single", "tsv"}, []string{"", "", "? = 1", "CAST(? AS tsvector)"}

// insertServerText stores the tsvector rows of texts in PostgreSQL, many
// rows per statement: one statement per entry cost a round trip and a
// plan each, and made the server the bottleneck of an index.
func (b *Batch) insertServerText(ctx context.Context, texts []pendingText) error {
	type row struct {
		doc int64
		r   pgTextRow
	}
	var rows []row
	flush := func() error {
		err := insertRowsAs(ctx, b.tx, "entry_text", serverTextCols, serverTextExprs, len(rows), func(i int) []any {
			return []any{rows[i].doc, rows[i].r.Chunk, rows[i].r.Only, rows[i].r.TSV}
		})
		rows = rows[:0]
		return err
	}
	size := 0
	for i := range texts {
		for _, r := range pgTextRows(texts[i].text) {
			rows = append(rows, row{texts[i].doc, r})
			size += len(r.TSV)
		}
		texts[i] = pendingText{}
		if size >= 4<<20 { // a statement's values stay a few MB
			if err := flush(); err != nil {
				return err
			}
			size = 0
		}
	}
	return flush()
}

// insertText stores one entry's search text (in ftsText's form) in the
// batch's transaction: one FTS5 row in SQLite; in PostgreSQL its tsvector
// rows (pgTextRows), none for a text without a token.
func (b *Batch) insertText(ctx context.Context, doc int64, text string) error {
	if !b.d.db.pg {
		_, err := b.tx.ExecContext(ctx, insertTextRow, doc, text)
		return err
	}
	return b.insertServerText(ctx, []pendingText{{doc: doc, text: text}})
}
