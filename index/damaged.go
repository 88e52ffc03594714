package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/grove-sessions/grove/errs"
	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// This file decides, before SQLite writes anything, whose file the index
// path holds (docs/indexing.md "A damaged or foreign index"):
//
//   - no file, or an empty one: no index yet; Open creates it;
//   - a file whose first 100 bytes are not a SQLite header carrying
//     ApplicationID: not_index, never opened by SQLite, never changed;
//   - ours, but made by a newer grove: newer_index, never changed;
//   - ours, but SQLite cannot read it (SQLITE_CORRUPT, SQLITE_NOTADB, pages
//     missing or overwritten, a schema that does not load, a table gone):
//     damaged_index. The caller decides what to do with it; package
//     ingest's OpenForWrite sets it aside and builds a new one.

// sqliteHeader is the magic string at byte 0 of every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// DamagedHint is the hint of every damaged_index error. It names only the
// command that repairs every kind of damage (SPEC §6): `grove index` on an
// index whose damage lies deeper than Open looks finds nothing to re-read
// and would leave it broken.
const DamagedHint = "the index is only a cache of your session files: `grove rebuild` sets it aside and builds a new one from the session files"

// requiredTables returns the tables an index of schema version has, as
// the migrations up to it create and drop them (CREATE [VIRTUAL] TABLE,
// DROP TABLE); a missing one makes the index damaged. TestRequiredTables
// checks the result against a new index.
//
// The migrations are read once per process (tablesAfter); each call copies
// the answer.
func requiredTables(version int) ([]string, error) {
	after, err := tablesAfter()
	if err != nil {
		return nil, err
	}
	return slices.Clone(after[min(max(version, 0), len(after)-1)]), nil
}

// tablesAfter is, for each schema version v from 0, the tables an index
// of version v has: worked out once from the migrations' SQL.
var tablesAfter = sync.OnceValues(func() ([][]string, error) {
	ms, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	out := [][]string{nil}
	for _, m := range ms {
		out = append(out, applyTables(slices.Clone(out[len(out)-1]), m.sql))
	}
	return out, nil
})

// sqlSpacer puts spaces around what may touch a table name.
var sqlSpacer = strings.NewReplacer("(", " ( ", ";", " ; ")

// applyTables returns tables as the migration SQL sql leaves them: each
// table it creates added, each it drops taken out.
func applyTables(tables []string, sql string) []string {
	var words []string
	for _, line := range strings.Split(sql, "\n") {
		line, _, _ = strings.Cut(line, "--")
		words = append(words, strings.Fields(sqlSpacer.Replace(line))...)
	}
	for i := 0; i+2 < len(words); i++ {
		create := strings.EqualFold(words[i], "CREATE")
		if !create && !strings.EqualFold(words[i], "DROP") {
			continue
		}
		j := i + 1
		if create && strings.EqualFold(words[j], "VIRTUAL") {
			j++
		}
		if j >= len(words) || !strings.EqualFold(words[j], "TABLE") {
			continue
		}
		for j++; j < len(words) && (strings.EqualFold(words[j], "IF") || strings.EqualFold(words[j], "NOT") || strings.EqualFold(words[j], "EXISTS")); j++ {
		}
		if j >= len(words) {
			break
		}
		name := strings.Trim(words[j], "\"`[]")
		tables = slices.DeleteFunc(tables, func(t string) bool { return t == name })
		if create {
			tables = append(tables, name)
		}
	}
	return tables
}

// owned reads the first 100 bytes of the file at abs, without SQLite, and
// reports whether it is a grove index (exists is false when there is no
// file or an empty one). A file that is not provably ours is a not_index
// error; nothing here opens the file for writing.
func owned(path, abs string) (exists bool, err error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, errs.Wrap(errs.CodeIO, err, "cannot read the index: "+pathErrMsg(err)).In(path)
	case fi.IsDir():
		return false, errs.New(errs.CodeNotIndex, "the index path is a directory, not an index file").In(path).WithHint("pass a file path with --db")
	case !fi.Mode().IsRegular():
		return false, errs.New(errs.CodeNotIndex, "the index path is not a regular file; refusing to use it").In(path).WithHint(hintOtherDB)
	case fi.Size() == 0:
		return false, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return false, errs.Wrap(errs.CodeIO, err, "cannot read the index: "+pathErrMsg(err)).In(path)
	}
	defer f.Close()
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, errs.Wrap(errs.CodeIO, err, "cannot read the index: "+pathErrMsg(err)).In(path)
	}
	if n < len(head) || !bytes.HasPrefix(head, []byte(sqliteHeader)) {
		return false, errs.New(errs.CodeNotIndex, "this file is not a SQLite database, so not a grove index; refusing to change it").In(path).WithHint(hintOtherDB + "; if this was a grove index, move it away yourself")
	}
	if id := binary.BigEndian.Uint32(head[68:72]); id != ApplicationID {
		return false, errs.New(errs.CodeNotIndex, fmt.Sprintf("this SQLite file is not a grove index (application id %#x, grove's is %#x); refusing to change it", id, ApplicationID)).In(path).WithHint(hintOtherDB)
	}
	return true, nil
}

// IsIndexFile reports whether the file at path is a grove index by its
// first 100 bytes: a regular file holding a SQLite header with
// ApplicationID, as Open decides (a damaged index whose header survives
// counts). SQLite never opens it; a file that cannot be read, a FIFO or a
// device is not one (a FIFO is opened without waiting for a writer).
func IsIndexFile(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 100)
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.HasPrefix(head, []byte(sqliteHeader)) && binary.BigEndian.Uint32(head[68:72]) == ApplicationID
}

// probe checks an existing grove index through a read-only connection,
// which never writes the file, its WAL, or runs a checkpoint when it
// closes: the schema version (newer_index), the schema itself, the tables
// of that version, and the root page of every table (a cheap read, not an
// integrity check: a page deeper down that is damaged shows up when a query
// reads it, as a damaged_index error too, see Classify).
func probe(ctx context.Context, path, abs string) error {
	db, err := sqlx.Open("sqlite", "file:"+uriEscaper.Replace(abs)+"?mode=ro&_busy_timeout=10000")
	if err != nil {
		return fmt.Errorf("open index %s: %w", path, err)
	}
	defer db.Close()
	// One read transaction: one lock and one snapshot for every query.
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return probeErr(path, err)
	}
	defer tx.Rollback()
	var appID, version int
	err = tx.GetContext(ctx, &appID, "PRAGMA application_id")
	if err == nil {
		err = tx.GetContext(ctx, &version, "PRAGMA user_version")
	}
	if err != nil {
		return probeErr(path, err)
	}
	if appID != ApplicationID { // the header said ours; the live page 1 does not
		return errs.New(errs.CodeNotIndex, fmt.Sprintf("this SQLite file is not a grove index (application id %#x); refusing to change it", appID)).In(path).WithHint(hintOtherDB)
	}
	if known := SchemaVersion(); version > known {
		return newerIndexError(path, version, known)
	}
	var tables []struct {
		Name string `db:"name"`
		Root int    `db:"rootpage"`
	}
	if err := tx.SelectContext(ctx, &tables, "SELECT name, rootpage FROM sqlite_schema WHERE type = 'table'"); err != nil {
		return probeErr(path, err)
	}
	have := map[string]bool{}
	for _, t := range tables {
		have[t.Name] = true
	}
	required, err := requiredTables(version)
	if err != nil {
		return err
	}
	for _, name := range required {
		if !have[name] {
			return damaged(path, fmt.Errorf("table %s is missing", name))
		}
	}
	// Each table's root page (and the first page below it), in one
	// statement; a virtual table has none, its shadow tables are checked.
	var roots []string
	for _, t := range tables {
		if t.Root > 0 {
			roots = append(roots, `coalesce((SELECT 1 FROM "`+strings.ReplaceAll(t.Name, `"`, `""`)+`" NOT INDEXED LIMIT 1), 0)`)
		}
	}
	if len(roots) > 0 {
		var n int
		if err := tx.GetContext(ctx, &n, "SELECT "+strings.Join(roots, " + ")); err != nil {
			return probeErr(path, err)
		}
	}
	return nil
}

// probeErr is a read failure of probe: damaged_index for corruption,
// otherwise the error itself.
func probeErr(path string, err error) error {
	if c := Classify(path, err); c != err {
		return c
	}
	return fmt.Errorf("open index %s: %w", path, err)
}

// Classify returns err as a damaged_index *errs.Error naming the index
// path when SQLite reported, anywhere in err's chain, that the file is
// corrupt (SQLITE_CORRUPT, any extended form) or not a database
// (SQLITE_NOTADB); when it reported that the file or its directory cannot
// be written or opened (SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM), an
// io_error saying so. Any other error, and nil, is returned unchanged, as is
// an error that already is one of these codes.
//
// Queries and ingest can meet a damaged page long after Open: commands call
// Classify on what they are about to report.
func Classify(path string, err error) error {
	if err == nil {
		return nil
	}
	switch errs.CodeOf(err) {
	case errs.CodeDamagedIndex, errs.CodeNotIndex, errs.CodeNewerIndex:
		return err
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return damaged(path, err)
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return errs.Wrap(errs.CodeIO, err, "the index is not writable: "+sqliteMsg(se)).In(path).WithHint("make the file and its directory writable by you (SQLite writes beside the index even to read it), or " + hintOtherDB)
	}
	return err
}

// Classify is Classify(d.File(), err).
func (d *DB) Classify(err error) error { return Classify(d.path, err) }

func damaged(path string, cause error) error {
	return errs.Wrap(errs.CodeDamagedIndex, cause, "the index is damaged: "+DamageCause(cause)).In(path).WithHint(DamagedHint)
}

// DamageCause is what SQLite said about a damaged index, without its
// numeric code: "database disk image is malformed", "file is not a
// database", "table labels is missing".
func DamageCause(err error) string {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return sqliteMsg(se)
	}
	var je *errs.Error
	if errors.As(err, &je) && je.Code == errs.CodeDamagedIndex && je.Err != nil {
		return je.Err.Error()
	}
	return err.Error()
}

// rcSuffix is the " (11)" modernc.org/sqlite appends to SQLite's message.
var rcSuffix = regexp.MustCompile(` \(\d+\)$`)

func sqliteMsg(se *sqlite.Error) string { return rcSuffix.ReplaceAllString(se.Error(), "") }

func pathErrMsg(err error) string { return errs.Reason(err) }
