package archive

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// FileDialect is the dialect of the file at path as the reader decides it
// (SPEC §3): from its first parseable committed line, read no further than
// that; else, for a file with no such line, from where it is (the agents'
// directories, jsonl.DialectAt). ok is false when the file cannot be
// opened as a regular file: the caller then says why in its own words.
func FileDialect(ctx context.Context, path string) (d Dialect, ok bool) {
	f, size, err := jsonl.OpenFile(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res, _ := jsonl.ReadOpen(f, size, jsonl.Options{Path: path, Mode: jsonl.Salvage, Context: ctx,
		Decided:    func(x Dialect) { d = x; cancel() },
		Diagnostic: func(*errs.Error) {}}, nil)
	if d == "" && res != nil {
		d = res.Dialect
	}
	if d == "" {
		d = jsonl.DialectAt(path)
	}
	return d, true
}

// MessagesLog is a messages log read from its file with no index (SPEC
// §3.6, the resume chapter's loadMessages): the messages on the path to a
// leaf, as stored.
type MessagesLog struct {
	SessionID string            // the file name without .jsonl (the agent's SessionID)
	Leaf      string            // the last entry on the path; "" when the log has none
	Messages  []json.RawMessage // every entry's line up to Leaf, byte for byte; never nil
	// Problems are the reader's diagnostics (bad lines, a torn tail), in
	// file order: their lines are no messages and are left out.
	Problems []*errs.Error
}

// ReadMessagesLog reads the messages log at path whole (a file whose
// agent answers from the file, Traits.FromFile: SPEC §3.6): the path to
// leaf (the last entry, the active leaf, when "") is every entry up to
// it, one chain. Errors: io_error when the file cannot be read,
// stale_index when it is no messages log by the time it is read,
// unknown_entry when leaf names no entry.
func ReadMessagesLog(ctx context.Context, path, leaf string) (*MessagesLog, error) {
	f, size, err := jsonl.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []json.RawMessage
	var ids []string
	log := &MessagesLog{}
	res, err := jsonl.ReadOpen(f, size, jsonl.Options{Path: path, Mode: jsonl.Salvage, Context: ctx, KeepRaw: true,
		Diagnostic: func(e *errs.Error) { log.Problems = append(log.Problems, e) }}, func(e jsonl.Entry) error {
		msgs = append(msgs, json.RawMessage(e.Raw))
		ids = append(ids, e.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	a := agent.Of(res.Dialect)
	if !a.Traits().FromFile {
		return nil, errs.New(errs.CodeStaleIndex, "the file changed while it was read: it is no messages log now").In(path)
	}
	log.SessionID = a.SessionID(path, res.Header)
	end := len(ids)
	if leaf != "" {
		end = slices.Index(ids, leaf) + 1
		if end == 0 {
			return nil, errs.New(errs.CodeUnknownEntry, "no entry "+strconv.Quote(leaf)+" in the messages log").In(path).WithID(leaf).WithHint("a messages log's entries are L<line>: grove path " + ShellQuote(path) + " lists them")
		}
	}
	if end > 0 {
		log.Leaf = ids[end-1]
	}
	log.Messages = msgs[:end]
	if log.Messages == nil {
		log.Messages = []json.RawMessage{}
	}
	return log, nil
}

// FileContext is the model context at leaf ("" for the active leaf) of
// the session file at path read whole, with no index (Load, then
// SessionContext), and the path it was built from: for a messages log,
// every line up to leaf, as stored (SPEC §3.6). The Path's Session holds
// only the id, path, dialect and workspace, and its entries no CRC-32, so
// ReadLine refuses them. Errors: those of Load, PathTo and SessionContext.
func FileContext(path, leaf string) (*Path, *Context, error) {
	s, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	if leaf == "" {
		leaf = ActiveLeaf(s.Dialect, s.Entries)
	}
	p := &Path{Session: &Session{SessionID: s.ID, Path: s.Path, Dialect: s.Dialect, Workspace: s.Workspace}, Leaf: leaf}
	if leaf == "" {
		c, err := SessionContext(s, leaf)
		return p, c, err
	}
	onPath, err := PathTo(s.Entries, leaf)
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) && je.Path == "" {
			je.Path = s.Path
		}
		return nil, nil, err
	}
	for _, e := range onPath {
		p.Entries = append(p.Entries, Entry{EntryID: e.ID, Type: e.Type, Line: e.Line, Offset: e.Offset, Length: e.Length})
	}
	c, err := SessionContext(s, leaf)
	return p, c, err
}
