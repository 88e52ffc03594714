package archive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// ExportPath answers the first half of `grove export`: the path to leaf
// (the active leaf when ""), by CTE, with every entry's committed line read
// back by offset and checked against its CRC-32, and the session's labels
// by target id. Errors: those of Path, and stale_index.
func (a *Archive) ExportPath(ctx context.Context, session, leaf string) (*Path, []FileEntry, map[string]string, error) {
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, nil, err
	}
	path, err := readPath(p, func(Entry) bool { return true })
	if err != nil {
		return nil, nil, nil, err
	}
	labels, err := a.db.Labels(ctx, p.Session.row.SID)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, path, labels, nil
}

// ForkLines is a new pi version 3 session holding path (root first, with
// Raw): the lines of its file, without their LFs. The header is
// {"type":"session","version":3,"id":id,"timestamp":now,"cwd":workspace,
// "parentSession":src.Path}, in the key order pi writes.
//
// Entries of a version 3 file are copied byte for byte. Older entries are
// migrated as pi migrates a file it opens, since a version 3 reader would
// misread them otherwise: a version 1 entry gets "id" and "parentId" (its
// grove id L<line> and its parent's, SPEC §3.2) and a compaction's
// firstKeptEntryIndex becomes firstKeptEntryId (none when it names no
// entry); a version 1 or 2 message of role "hookMessage" gets role
// "custom" (SPEC §5). Every other member keeps its bytes and its place, so
// integers beyond 2^53 and escaped lone surrogates stay as they are.
//
// Labels: the label entries on the path alone may not give the labels the
// source gives its path's entries (one set or cleared on another branch),
// so where they differ from labels (the source's, by target id) a label
// entry is appended after the path, as pi's createBranchedSession writes
// the labels of a fork after it; such entries get fresh 8-hex ids. The
// fork's active leaf is then the last of them, with the same context.
//
// Errors: wrong_dialect for a session of another dialect (it is no pi
// session; Claude Code's and Codex's are never written),
// bad_line for a line that is not a JSON object.
func ForkLines(src *Session, path []FileEntry, labels map[string]string, id string, now time.Time) ([][]byte, error) {
	if src.Dialect != jsonl.Pi {
		return nil, errs.New(errs.CodeWrongDialect, "a "+string(src.Dialect)+" session cannot be exported as a pi session file").In(src.Path).WithHint("export it with --format md or html")
	}
	lines := [][]byte{forkHeader(src, id, now)}
	for i := range path {
		line, err := forkLine(src, path, i, path[i].Raw)
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	return append(lines, labelFixes(path, labels, now)...), nil
}

// forkHeader is the header line of ForkLines.
func forkHeader(src *Session, id string, now time.Time) []byte {
	return marshalOrdered("type", json.RawMessage(`"session"`), "version", json.RawMessage("3"), "id", jsonText(id),
		"timestamp", jsonText(now.UTC().Format("2006-01-02T15:04:05.000Z")), "cwd", jsonText(src.Workspace),
		"parentSession", jsonText(src.Path))
}

// forkLine is the line of ForkLines for path[i], whose committed line is
// raw (path[i].Raw need not be set; path[i-1].ID is the parent of a
// version 1 entry). Errors: bad_line, as ForkLines.
func forkLine(src *Session, path []FileEntry, i int, raw []byte) ([]byte, error) {
	e := path[i]
	e.Raw = raw
	line := e.Raw
	if src.Version <= 1 {
		parent := json.RawMessage("null")
		if i > 0 {
			parent = jsonText(path[i-1].ID)
		}
		line = migrateV1(e, parent)
	}
	// pi migrates version 1 to 2, then 2 to 3: a v1 file gets both.
	if line != nil && src.Version <= 2 && e.Type == "message" && e.Role == "hookMessage" {
		line = editMember(line, "message", func(m json.RawMessage) json.RawMessage {
			return editMember(m, "role", func(json.RawMessage) json.RawMessage { return json.RawMessage(`"custom"`) })
		})
	}
	if line == nil {
		return nil, errs.New(errs.CodeBadLine, "the line is not a JSON object and cannot be migrated").In(src.Path).At(e.Line, e.Offset)
	}
	return line, nil
}

// labelFixes are the label entries that make a fork of path label its
// entries as labels says: one per entry whose label the path's own label
// entries leave different, chained after the path's last entry.
func labelFixes(path []FileEntry, labels map[string]string, now time.Time) [][]byte {
	got := map[string]string{}
	ids := map[string]bool{}
	for _, e := range path {
		ids[e.ID] = true
		if e.Type != "label" {
			continue
		}
		var l struct {
			TargetID string `json:"targetId"`
			Label    string `json:"label"`
		}
		_ = json.Unmarshal(e.Raw, &l)
		if l.TargetID != "" {
			got[l.TargetID] = l.Label // "" clears, as in Facts
		}
	}
	var out [][]byte
	parent := ""
	if len(path) > 0 {
		parent = path[len(path)-1].ID
	}
	ts := jsonText(now.UTC().Format("2006-01-02T15:04:05.000Z"))
	for _, e := range path {
		if e.Type == "label" || got[e.ID] == labels[e.ID] {
			continue
		}
		fresh := newEntryID(ids)
		kv := []any{"type", json.RawMessage(`"label"`), "id", jsonText(fresh), "parentId", jsonText(parent),
			"timestamp", ts, "targetId", jsonText(e.ID)}
		if l := labels[e.ID]; l != "" {
			kv = append(kv, "label", jsonText(l))
		}
		out = append(out, marshalOrdered(kv...))
		got[e.ID] = labels[e.ID]
		parent = fresh
	}
	return out
}

// newEntryID is a random 8-hex-digit id not in used (pi's generateId),
// which it then holds.
func newEntryID(used map[string]bool) string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if !used[id] {
			used[id] = true
			return id
		}
	}
}

// migrateV1 is pi's version 1 → 2 migration of one entry: "id" and
// "parentId" appended, a compaction's firstKeptEntryIndex replaced by the
// firstKeptEntryId the reader resolved (SPEC §3.2; dropped when it names no
// entry). It returns nil when the line is not a JSON object.
func migrateV1(e FileEntry, parent json.RawMessage) json.RawMessage {
	members, ok := objectMembers(e.Raw)
	if !ok {
		return nil
	}
	var kv []any
	for _, m := range members {
		if e.Type == "compaction" && m.key == "firstKeptEntryIndex" {
			continue
		}
		kv = append(kv, m.key, m.value)
	}
	kv = append(kv, "id", jsonText(e.ID), "parentId", parent)
	if e.Type == "compaction" && e.FirstKept != "" {
		kv = append(kv, "firstKeptEntryId", jsonText(e.FirstKept))
	}
	return marshalOrdered(kv...)
}

// editMember returns the JSON object raw with the value of key replaced by
// edit(value), every other member kept; nil when raw is not an object.
func editMember(raw json.RawMessage, key string, edit func(json.RawMessage) json.RawMessage) json.RawMessage {
	members, ok := objectMembers(raw)
	if !ok {
		return nil
	}
	var kv []any
	for _, m := range members {
		v := m.value
		if m.key == key {
			v = edit(v)
		}
		kv = append(kv, m.key, v)
	}
	return marshalOrdered(kv...)
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of the JSON object raw in their order
// (a key given twice twice), each value byte for byte as a sub-slice of raw
// (jsonl.Members); false when raw is not one valid JSON object.
func objectMembers(raw json.RawMessage) ([]member, bool) {
	var out []member
	ok := jsonl.Members(raw, func(k string, v []byte) bool {
		out = append(out, member{k, v})
		return true
	})
	return out, ok
}

// WriteFork creates the session file out (mode 0600; it must not exist)
// and copies lines into it byte for byte through the committed-log
// writer's Writer.CopyAsync (SPEC §5: a fork copies committed history), which
// reads each as the new file's reader will and holds the tree rules, but
// not the writer's strictness for new entries: integers beyond 2^53 and
// escaped lone surrogates of the source are copied. The header and label
// fixes ForkLines makes are grove's own JSON and would pass that
// strictness too. If any append fails, the new
// file is removed, so no half fork is left behind. Errors (*errs.Error):
// file_exists when out is there, io_error when it cannot be created, and
// those of jsonl.OpenWriter and Writer.Append (wrapped, naming the failing
// line, 1 = the header).
func WriteFork(out string, lines [][]byte) (err error) {
	return writeFork(out, func(yield func(n int, line []byte) error) error {
		for i, l := range lines {
			if err := yield(i+1, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// forkWindow bounds the bytes of the copies writeFork has issued and not
// yet waited for: a fork of a large session is never held whole.
const forkWindow = 1 << 20

// writeFork is WriteFork of the lines each gives in order (n numbers them
// from 1, the header): each line is copied as it comes, no more than
// forkWindow bytes of them pending at once. An error of each's stops the
// copy and is returned, the new file removed.
func writeFork(out string, each func(yield func(n int, line []byte) error) error) (err error) {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return ExistsError(out)
		}
		return errs.Wrap(errs.CodeIO, err, "cannot create the new session file: "+errMsg(err)).In(out)
	}
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(out)
		}
	}()
	// One fsync at the end, not one per line: until it returns, the fork
	// is not done, and a crash leaves at worst a torn copy (the source is
	// never touched).
	w, err := jsonl.OpenWriter(out, jsonl.WriterOptions{})
	if err != nil {
		return err
	}
	type issued struct {
		n    int
		size int
		p    *jsonl.Pending
	}
	var pending []issued
	held := 0
	// settle waits for the oldest pending copies until at most keep bytes
	// are pending; the first failure is the answer.
	settle := func(keep int) error {
		for len(pending) > 0 && held > keep {
			c := pending[0]
			pending, held = pending[1:], held-c.size
			if perr := c.p.Wait(); perr != nil {
				return fmt.Errorf("%s line %d: %w", out, c.n, perr)
			}
		}
		return nil
	}
	err = each(func(n int, line []byte) error {
		pending = append(pending, issued{n, len(line), w.CopyAsync(line)})
		held += len(line)
		return settle(forkWindow)
	})
	if serr := settle(-1); err == nil {
		err = serr
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncFile(out)
	}
	return err
}

// syncFile flushes the file at path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// ExistsError is file_exists for an output file that is already there.
func ExistsError(path string) *errs.Error {
	return errs.Wrap(errs.CodeFileExists, os.ErrExist, "the file is already there; grove never appends to or replaces it").In(path).WithHint("choose another --out (md and html: --force replaces it)")
}
