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
	"syscall"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// CheckExportTarget refuses an export --out target that is a session file,
// with or without --force (SPEC §8, issue 13): a would_replace_session
// *jsonl.Error naming target and why, when target exists and
//
//   - is the file of src, or of any indexed session (the same device and
//     inode, or the same real path);
//   - lies under a root the index remembers (see Sources);
//   - begins with a session header or entry of any dialect (see
//     SessionLine).
//
// A target that does not exist is never refused here: a fork into a pi
// sessions directory is how a new session is made. Errors reading the
// index are returned as they are; a target that cannot be read is left to
// the writer, which reports it.
func (a *Archive) CheckExportTarget(ctx context.Context, src *index.Session, target string) error {
	fi, err := os.Stat(target)
	if err != nil {
		return nil
	}
	refuse := func(why string) error {
		return &jsonl.Error{Code: jsonl.CodeWouldReplace, Path: target, Offset: -1,
			Message: "refusing to replace a session file, even with --force: " + why,
			Hint:    "choose another --out, or write to stdout and redirect"}
	}
	real := target
	if r, err := filepath.EvalSymlinks(target); err == nil {
		real = r
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	same := func(path string, dev, ino int64) bool {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && dev != 0 && ino != 0 && int64(st.Dev) == dev && int64(st.Ino) == ino {
			return true
		}
		if r, err := filepath.EvalSymlinks(path); err == nil {
			path = r
		}
		return path == real
	}
	if src != nil {
		sfi, err := os.Stat(src.Path)
		if same(src.Path, src.FileDev, src.FileIno) || (err == nil && os.SameFile(fi, sfi)) {
			return refuse("it is the file of session " + src.SessionID + ", the one being exported")
		}
	}
	files, err := a.db.SessionFiles(ctx)
	if err != nil {
		return a.db.Classify(err)
	}
	for _, f := range files {
		if same(f.Path, f.Dev, f.Ino) {
			return refuse("it is the file of the indexed session " + f.Path)
		}
	}
	roots, _, err := a.Sources(ctx)
	if err != nil {
		return a.db.Classify(err)
	}
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if rel, err := filepath.Rel(r, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return refuse("it is under the session root " + r)
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
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
	case typ == "session_meta" && objectPayload, typ == "response_item", typ == "event_msg", typ == "turn_context", typ == "compacted":
		return "a Codex session line (" + typ + ")"
	case has["uuid"] || has["parentUuid"] || has["sessionId"] || has["leafUuid"] || claudeTypes[typ]:
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

// claudeTypes are the Claude Code line types of FORMATS.md §0.
var claudeTypes = map[string]bool{
	"summary": true, "file-history-snapshot": true, "queue-operation": true, "user": true, "assistant": true,
	"system": true, "progress": true, "attachment": true, "last-prompt": true, "permission-mode": true,
	"custom-title": true, "ai-title": true, "mode": true, "pr-link": true, "tag": true, "relocated": true,
	"worktree-state": true, "agent-name": true, "content-replacement": true,
}

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
