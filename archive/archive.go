package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/plural"
)

// Archive ties the session files and the index together: commands ask it,
// it answers from the index and reads message bodies back from the files.
// What writes the index (Index, Watch, Rebuild) is package ingest's; an
// Archive holds its Indexer and asks it.
type Archive struct {
	ix     *ingest.Indexer // the index and its write path
	readAs string          // ReadAs's source: a session named must be of it
}

// db is the index the Indexer holds now: a damaged one it set aside is
// replaced by a new one (ingest.Indexer.Index).
func (a *Archive) db() *index.DB { return a.ix.DB() }

// Open opens (creating if needed) the index at dbPath. Errors are those of
// index.Open; a command that writes the index uses OpenForWrite, which
// replaces a damaged one.
func Open(ctx context.Context, dbPath string) (*Archive, error) {
	ix, err := ingest.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	return &Archive{ix: ix}, nil
}

// ReadAs makes a reading archive take name's session where a session id
// or path names sessions of several sources (PostgreSQL, SPEC §10);
// without it, this machine's host name's. It writes nothing.
// Given so, a name that means only sessions of other sources is
// unknown_session.
func (a *Archive) ReadAs(name string) { a.db().SetSource(name); a.readAs = name }

// SetSource names the machine (--source; "" means the host name) whose
// session files this archive writes into the index (SPEC §10). In SQLite
// the next index pass also gives that name to the sessions written before
// schema 9 (index.DB.ClaimSources), under the index's lock.
func (a *Archive) SetSource(ctx context.Context, name string) error {
	return a.ix.SetSource(ctx, name)
}

// Close closes the index.
func (a *Archive) Close() error { return a.ix.Close() }

// Resolve finds the session named by arg (SPEC §3.3): a file path, a session
// id, or a unique id prefix of at least 4 characters. Errors:
// unknown_session, or ambiguous_session with the candidates in Candidates.
func (a *Archive) Resolve(ctx context.Context, arg string) (*Session, error) {
	s, err := a.resolve(ctx, arg)
	if err != nil {
		return nil, err
	}
	return a.sessionOf(s), nil
}

// ResolveID is Resolve for a name that is only ever an id: the session
// whose id is arg, else the one whose id starts with arg (4+ characters);
// arg is never taken as a file path, whatever it holds (grove serve names
// sessions by id in its URLs, SPEC §9). Errors: those of Resolve.
func (a *Archive) ResolveID(ctx context.Context, arg string) (*Session, error) {
	s, err := a.resolveID(ctx, arg)
	if err != nil {
		return nil, err
	}
	return a.sessionOf(s), nil
}

// QualifiedName names the session of source at path, for a front end
// that must tell apart sessions of several sources at one path (grove
// serve's links, SPEC §10): Resolve takes it. It is no file path: it holds
// a NUL, which no path or command-line argument does.
func QualifiedName(source, path string) string { return source + "\x00" + path }

// resolve is Resolve with the index row.
func (a *Archive) resolve(ctx context.Context, arg string) (*index.Session, error) {
	if source, path, ok := strings.Cut(arg, "\x00"); ok {
		found, err := a.db().SessionsAtPath(ctx, path)
		if err != nil {
			return nil, err
		}
		for i := range found {
			if found[i].Source == source {
				return &found[i], nil
			}
		}
		return nil, UnknownSession(path, source)
	}
	if strings.ContainsRune(arg, os.PathSeparator) || strings.HasSuffix(arg, ".jsonl") {
		if abs, err := filepath.Abs(arg); err == nil {
			if s, err := a.atPath(ctx, arg, abs); err != nil || s != nil {
				return s, err
			}
			// A symlinked path: try the resolved one.
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				if s, err := a.atPath(ctx, arg, real); err != nil || s != nil {
					return s, err
				}
			}
		}
	}
	return a.resolveID(ctx, arg)
}

// atPath is the session stored for the file at abs, nil when none is. In
// PostgreSQL several sources may have a file at abs: this grove's own
// source's is taken, else the one there is; two or more of other sources
// are ambiguous_session, each candidate named with its source.
func (a *Archive) atPath(ctx context.Context, arg, abs string) (*index.Session, error) {
	found, err := a.db().SessionsAtPath(ctx, abs)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	if found = a.ofReadAs(found); len(found) == 0 {
		return nil, UnknownSession(arg, a.readAs)
	}
	if len(found) == 1 {
		return &found[0], nil
	}
	if s := a.ofOwnSource(found); s != nil {
		return s, nil
	}
	var c []errs.Candidate
	for _, s := range found {
		c = append(c, errs.Candidate{ID: s.SessionID, Path: s.Path, Source: s.Source})
	}
	return nil, ambiguousSession(arg, c)
}

// ofReadAs is found less the sessions of other sources than ReadAs's,
// when it was given.
func (a *Archive) ofReadAs(found []index.Session) []index.Session {
	if a.readAs == "" || !a.db().IsServer() {
		return found
	}
	var out []index.Session
	for _, s := range found {
		if s.Source == a.readAs {
			out = append(out, s)
		}
	}
	return out
}

// ofOwnSource is the one of found (sessions a name could mean) that
// belongs to this grove's source (SetSource: --source, else the host
// name) when found holds sessions of several sources (PostgreSQL, SPEC
// §10), and just one of its own; else nil.
func (a *Archive) ofOwnSource(found []index.Session) *index.Session {
	if !a.db().IsServer() {
		return nil
	}
	var own *index.Session
	for i := range found {
		if found[i].Source == a.db().Source() {
			if own != nil {
				return nil
			}
			own = &found[i]
		}
	}
	return own
}

// currentFirst is found less the earlier versions of session files
// (StateEarlier) when it holds any other session: a prefix of a session's
// id names its current version, as it did before the file was rewritten;
// an earlier one is named by its whole id ("…@vN") or path (SPEC §11).
func currentFirst(found []index.Session) []index.Session {
	var out []index.Session
	for _, s := range found {
		if !(s.Gone && kept.IsEarlier(s.Path, s.SessionID)) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return found
	}
	return out
}

// resolveID is ResolveID with the index row.
func (a *Archive) resolveID(ctx context.Context, arg string) (*index.Session, error) {
	found, err := a.db().SessionsByIDPrefix(ctx, arg)
	if err != nil {
		return nil, err
	}
	found = currentFirst(a.ofReadAs(found))
	switch len(found) {
	case 0:
		return nil, UnknownSession(arg, a.readAs)
	case 1:
		return &found[0], nil
	}
	if s := a.ofOwnSource(found); s != nil {
		return s, nil
	}
	var cs []errs.Candidate
	for _, s := range found {
		c := errs.Candidate{ID: s.SessionID, Path: s.Path}
		if a.db().IsServer() {
			c.Source = s.Source
		}
		cs = append(cs, c)
	}
	return nil, ambiguousSession(arg, cs)
}

// Fresh checks that the file of s still is what the index saw: same size,
// mtime, device and inode (SPEC §6). Otherwise it returns a stale_index
// error naming the file. A Session that did not come from the index (no
// row) is taken as fresh.
func Fresh(s *Session) error {
	if s.row == nil || s.store != nil || s.row.Gone {
		return nil
	}
	return fresh(s.row)
}

func fresh(s *index.Session) error {
	st, err := ingest.Stat(s.Path)
	if err != nil {
		return errs.Wrap(errs.CodeStaleIndex, err, "the session file is gone or unreadable since it was indexed: "+errs.PathReason(err)).In(s.Path).WithHint(hintReindex(s.Path))
	}
	if !ingest.SameStat(s, st) {
		return errs.New(errs.CodeStaleIndex, fmt.Sprintf("the session file changed since it was indexed (%s then, %d now)", plural.Count(int(s.FileSize), "byte", "bytes"), st.Size)).In(s.Path).WithHint(hintReindex(s.Path))
	}
	return nil
}

// Path is the answer of `grove path` (SPEC §4, §8): the entries from the
// root to the leaf.
type Path struct {
	Session *Session
	Leaf    string  // the leaf's id (the active leaf when none was asked for)
	Entries []Entry // root first, the leaf last; empty for a session without entries
}

// Path answers the path to leaf in session (active leaf when leaf is "")
// from the index by recursive CTE (SPEC §4, §6). Errors: those of Resolve,
// stale_index, and the tree errors of PathTo.
func (a *Archive) Path(ctx context.Context, session, leaf string) (*Path, error) {
	s, err := a.resolve(ctx, session)
	if err != nil {
		return nil, err
	}
	if err := a.fresh(s); err != nil {
		return nil, err
	}
	if leaf == "" {
		if s.ActiveLeaf == nil {
			return nil, errs.New(errs.CodeUnknownEntry, "the session has no entries, so no active leaf").In(s.Path)
		}
		leaf = *s.ActiveLeaf
	} else if leaf, err = a.leafByPrefix(ctx, s, leaf); err != nil {
		return nil, err
	}
	entries, err := a.db().Path(ctx, s.SID, leaf)
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) && je.Path == "" {
			je.Path = s.Path
		}
		return nil, err
	}
	return &Path{Session: a.sessionOf(s), Leaf: leaf, Entries: entriesOf(entries)}, nil
}

// leafByPrefix is the entry id leaf stands for in session s: leaf itself
// when an entry has that id, else the one id that begins with it when
// leaf has 4 characters or more (the 8 that grove serve and the tables
// show, SPEC §9); else leaf, for Path to say it is unknown. Two ids that
// begin with it are unknown_entry naming both.
func (a *Archive) leafByPrefix(ctx context.Context, s *index.Session, leaf string) (string, error) {
	if len([]rune(leaf)) < 4 {
		return leaf, nil
	}
	if e, err := a.db().EntryByID(ctx, s.SID, leaf); err != nil || e != nil {
		return leaf, err
	}
	ids, err := a.db().EntryIDsFrom(ctx, s.SID, leaf)
	switch {
	case err != nil:
		return "", err
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) > 1:
		return "", errs.New(errs.CodeUnknownEntry, "more than one entry id begins with "+strconv.Quote(leaf)+" ("+ids[0]+", "+ids[1]+", …)").In(s.Path).WithID(leaf).
			WithHint("give more of the id")
	}
	return leaf, nil
}

// Messages answers `grove messages`: the path by CTE, then the message of
// every message entry (MessageEntries), read back from the file by byte
// offset and checked against the CRC-32 the index stored (SPEC §4, §6;
// ReadMessage). Each message is the raw JSON from the line, byte for byte.
func (a *Archive) Messages(ctx context.Context, session, leaf string) (*Path, []json.RawMessage, error) {
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, err
	}
	f, err := p.Session.open()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	msgs := []json.RawMessage{}
	for _, e := range MessageEntries(p) {
		m, err := ReadMessage(f, p, e)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, m)
	}
	return p, msgs, nil
}

// MessageEntries are the entries of p that hold a message by the rules of
// its session's agent, in path order: one message each, as Messages
// answers them (a front end that pages the messages reads only those of a
// page, with ReadMessage).
func MessageEntries(p *Path) []Entry {
	rules := agent.Of(p.Session.Dialect)
	var out []Entry
	for _, e := range p.Entries {
		if rules.HasMessage(e.Type, deref(e.Role)) {
			out = append(out, e)
		}
	}
	return out
}

// ReadMessage is the message of e, one of MessageEntries(p), read from f
// (Archive.OpenSession of p.Session) by byte offset and checked against
// the CRC-32 the index stored: the raw JSON as Messages answers it.
// Errors: ReadLine's, and stale_index for a line that no longer holds a
// message.
func ReadMessage(f io.ReaderAt, p *Path, e Entry) (json.RawMessage, error) {
	raw, err := ReadLine(f, p.Session.Path, e)
	if err != nil {
		return nil, err
	}
	m := agent.Of(p.Session.Dialect).Message(e.Type, raw)
	if m == nil {
		return nil, errs.New(errs.CodeStaleIndex, "the line no longer holds a message").In(p.Session.Path).At(e.Line, e.Offset)
	}
	return m, nil
}

// readPath turns the index's path into entries as the reader gives them,
// reading back (by offset, checked against the stored CRC-32) the lines of
// the entries need picks; the others keep a nil Raw.
func readPath(p *Path, need func(Entry) bool) ([]FileEntry, error) {
	f, err := p.Session.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]FileEntry, len(p.Entries))
	for i, e := range p.Entries {
		out[i] = jsonlEntry(e)
		if need(e) {
			if out[i].Raw, err = ReadLine(f, p.Session.Path, e); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// jsonlEntry is an entry as the reader's Entry, without Raw.
func jsonlEntry(e Entry) FileEntry {
	j := FileEntry{ID: e.EntryID, Type: e.Type, Role: deref(e.Role), Line: e.Line, Offset: e.Offset, Length: e.Length,
		FirstKept: deref(e.FirstKept), Root: e.ParentID == nil, ParentID: deref(e.ParentID)}
	if e.TsMs != nil {
		j.Timestamp, j.HasTime = *e.TsMs, true
	}
	return j
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ReadLine reads the committed line of e from f, the session file at path,
// by byte offset (e.Offset, e.Length bytes) and checks it against the
// CRC-32 the index stored (SPEC §6). A difference, or a failed read, is a
// stale_index error naming path, line and offset.
func ReadLine(f io.ReaderAt, path string, e Entry) ([]byte, error) {
	return readLineInto(f, path, e, nil)
}

// readLineInto is ReadLine into buf when it has room (the answer is then
// buf's bytes, valid until buf is used again), otherwise into a new slice.
func readLineInto(f io.ReaderAt, path string, e Entry, buf []byte) ([]byte, error) {
	if cap(buf) < e.Length {
		buf = make([]byte, e.Length)
	}
	buf = buf[:e.Length]
	if _, err := f.ReadAt(buf, e.Offset); err != nil {
		return nil, readBackErr(path, e, err)
	}
	if crc32.ChecksumIEEE(buf) != e.crc {
		return nil, changedErr(path, e)
	}
	return buf, nil
}

// readBackErr is ReadLine's stale_index for a line of the file at path
// that cannot be read back.
func readBackErr(path string, e Entry, err error) error {
	if errors.Is(err, kept.ErrCorrupt) {
		return errs.Wrap(errs.CodeIO, err, "cannot read the entry's line back: "+err.Error()).In(path).At(e.Line, e.Offset).WithHint(kept.DamagedHint)
	}
	return errs.Wrap(errs.CodeStaleIndex, err, "cannot read the entry's line back: "+err.Error()).In(path).At(e.Line, e.Offset).WithHint(hintRunIndex)
}

// changedErr is ReadLine's stale_index for a line whose CRC-32 differs.
func changedErr(path string, e Entry) error {
	return errs.New(errs.CodeStaleIndex, "the entry's line changed since it was indexed, though the file's size and mtime did not").In(path).At(e.Line, e.Offset).WithHint("run `grove index --force " + path + "`")
}

// readRow is ReadLine for an index row.
func readRow(f io.ReaderAt, path string, e index.Entry) ([]byte, error) {
	return ReadLine(f, path, entryOf(e))
}
