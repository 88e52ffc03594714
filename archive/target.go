package archive

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/jsonl"
)

// CheckExportTarget refuses an export --out target that is grove's index
// or a session file, with or without --force (SPEC §8
// would_replace_session; docs/writing.md "Export never replaces a session").
//
// First the index (see ingest.CheckIndexTarget): a would_replace_index
// *errs.Error when target is this archive's index, a file grove keeps
// beside it, or any grove index — whether or not target exists yet, since
// a -wal or .sources file written by export would be read back as the
// index's own.
//
// Then a would_replace_session *errs.Error naming target and why, when
// target exists and
//
//   - is the file of src, or of any indexed session (the same device and
//     inode, or the same real path);
//   - lies under a root the index remembers (ingest.Indexer.Sources);
//   - begins with a session header or entry of any dialect (see
//     SessionLine).
//
// A target that does not exist is never refused here: a fork into a pi
// sessions directory is how a new session is made. Errors reading the
// index are returned as they are; a target that cannot be read is left to
// the writer, which reports it.
func (a *Archive) CheckExportTarget(ctx context.Context, src *Session, target string) error {
	if err := ingest.CheckIndexTarget(a.db().File(), target); err != nil {
		return err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return nil
	}
	refuseMsg := func(msg string) error {
		return errs.New(errs.CodeWouldReplace, msg).In(target).WithHint("choose another --out, or write to stdout and redirect")
	}
	refuse := func(why string) error {
		return refuseMsg("refusing to replace a session file, even with --force: " + why)
	}
	real := target
	if r, err := filepath.EvalSymlinks(target); err == nil {
		real = r
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	tdev, tino := ingest.FileID(target, fi)
	same := func(path string, dev, ino int64) bool {
		if dev != 0 && ino != 0 && tdev == dev && tino == ino {
			return true
		}
		if r, err := filepath.EvalSymlinks(path); err == nil {
			path = r
		}
		return path == real
	}
	if src != nil {
		var dev, ino int64
		if src.row != nil {
			dev, ino = src.row.FileDev, src.row.FileIno
		}
		sfi, err := os.Stat(src.Path)
		if same(src.Path, dev, ino) || (err == nil && os.SameFile(fi, sfi)) {
			return refuse("it is the file of session " + src.SessionID + ", the one being exported")
		}
	}
	files, err := a.db().SessionFiles(ctx)
	if err != nil {
		return a.db().Classify(err)
	}
	for _, f := range files {
		if same(f.Path, f.Dev, f.Ino) {
			return refuse("it is the file of the indexed session " + f.Path)
		}
	}
	roots, _, err := a.ix.Sources(ctx)
	if err != nil {
		return a.db().Classify(err)
	}
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if rel, err := filepath.Rel(r, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			// Not known to be a session: say what it is.
			return refuseMsg("refusing to replace a file under the session root " + r +
				", even with --force: grove does not replace files under a session root")
		}
	}
	if what := SessionLine(target); what != "" {
		return refuse("its first line is " + what)
	}
	return nil
}

// SessionLine reads the first non-blank line of the file at path (byte
// order marks and JSON whitespace before it skipped) and returns what
// session line of which dialect it is ("a pi session
// header", "a Claude Code entry", ...), or "" when it is none, or the file
// cannot be read. The tests are FORMATS.md §0's, on the line's top-level
// members only; member values are read as a stream, so a long first line
// costs its longest string, not its length.
func SessionLine(path string) string {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "" // a FIFO would wait for a writer, a device never end
	}
	// O_NONBLOCK: a FIFO put there since the stat does not wait either.
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		// A byte order mark at byte 0 is skipped by grove's reader (SPEC
		// §2.2), and tools that write one may write it where a line
		// starts: before the first line it never makes a session less of
		// one here (refusing too much loses nothing; too little loses a
		// session).
		if bom, _ := r.Peek(len(utf8BOM)); string(bom) == utf8BOM {
			r.Discard(len(utf8BOM))
			continue
		}
		b, err := r.ReadByte()
		if err != nil {
			return ""
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			if b != '{' {
				return ""
			}
			r.UnreadByte()
			break
		}
	}
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var (
		typ, role                          string
		has                                = map[string]bool{}
		objectPayload, stringID, contentOK bool
	)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := t.(string)
		has[key] = true
		switch key {
		case "type", "role", "id":
			var s any
			if err := dec.Decode(&s); err != nil {
				return ""
			}
			str, _ := s.(string)
			switch key {
			case "type":
				typ = str
			case "role":
				role = str
			case "id":
				stringID = str != ""
			}
		case "payload", "content":
			t, err := dec.Token()
			if err != nil {
				return ""
			}
			if key == "payload" {
				objectPayload = t == json.Delim('{')
			} else {
				_, isString := t.(string)
				contentOK = isString || t == json.Delim('[')
			}
			if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
				if err := skipRest(dec); err != nil {
					return ""
				}
			}
		default:
			if err := skipValue(dec); err != nil {
				return ""
			}
		}
	}
	switch {
	case typ == "session" || typ == "title":
		return "a pi session header"
	case typ == "session_meta" && objectPayload, typ != "session_meta" && jsonl.IsCodexType(typ):
		return "a Codex session line (" + typ + ")"
	case has["uuid"] || has["parentUuid"] || has["sessionId"] || has["leafUuid"] || jsonl.IsClaudeType(typ):
		return "a Claude Code session line"
	case typ != "" && has["id"] && (has["parentId"] || piTypes[typ]):
		return "a pi session entry (" + typ + ")"
	case has["id"] && has["parentId"]:
		return "a plain session entry"
	case role != "" && contentOK && typ == "" && !has["id"] && !has["uuid"]:
		return "a chat message (a messages log)"
	case stringID && has["timestamp"] && typ == "" && role == "" && !has["parentId"]:
		return "a Codex session header"
	}
	return ""
}

// utf8BOM is the UTF-8 byte order mark, U+FEFF.
const utf8BOM = "\xef\xbb\xbf"

// piTypes are pi's entry types (SPEC §3.2).
var piTypes = map[string]bool{
	"message": true, "model_change": true, "thinking_level_change": true, "compaction": true,
	"branch_summary": true, "custom": true, "custom_message": true, "label": true, "session_info": true,
}

// skipValue consumes one JSON value from dec, token by token.
func skipValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec)
	}
	return nil
}

// skipRest consumes the rest of an object or array whose opening delimiter
// dec has just returned.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	}
	return nil
}
