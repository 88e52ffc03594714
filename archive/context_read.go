package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// SessionContext is the model context at leaf ("" for the active leaf) of
// the session s read whole, in its dialect: PathTo, then BuildContext (pi,
// plain; Version set from the header) or AgentContext, the children of an
// entry taken from s.Entries and the codex header from s.Header (else read
// from the file before the first entry). It is the pure side that
// Archive.Context must agree with. Errors: those of PathTo, of the rules,
// and of reading the file for the header.
func SessionContext(s *File, leaf string) (*Context, error) {
	if leaf == "" {
		leaf = ActiveLeaf(s.Dialect, s.Entries)
	}
	if leaf == "" {
		c := emptyContext(s.Dialect)
		return c, nil
	}
	path, err := PathTo(s.Entries, leaf)
	if err != nil {
		return nil, err
	}
	switch s.Dialect {
	case jsonl.Messages, jsonl.Claude, jsonl.Codex:
	default:
		c, err := BuildContext(path)
		if err != nil {
			return nil, err
		}
		c.Dialect = s.Dialect
		if s.Header != nil {
			c.Version = s.Header.Version
		}
		return c, nil
	}
	kids := map[string][]FileEntry{}
	for _, e := range s.Entries {
		if !e.Root {
			kids[e.ParentID] = append(kids[e.ParentID], e)
		}
	}
	var header json.RawMessage
	if s.Dialect == jsonl.Codex {
		if s.Header != nil && s.Header.Raw != nil {
			header = s.Header.Raw
		} else if header, err = codexHeader(&Session{Path: s.Path}, path[0].Offset); err != nil {
			return nil, err
		}
	}
	return AgentContext(s.Dialect, path, func(id string) []FileEntry { return kids[id] }, header)
}

// Context answers `grove context` in the session's dialect (SPEC §4.1,
// §3.4–3.6): the model context at leaf ("" for the active leaf) with the
// path it was built from. For pi and plain, the path by CTE, the lines
// BuildContext needs read back by offset and checked against their CRC-32,
// then BuildContext (Version set from the session); for messages, claude and codex the
// path by CTE, the lines AgentContext reads checked against their CRC-32,
// and for claude the lines of off-path children of a tool_use line read
// only when a tool_use on the path lacks its result (the index's entries of
// the session, then the lines of those children). A session without entries
// has the empty context. Errors: those of Path, and stale_index when a line
// cannot be read back or no longer is what the index saw.
func (a *Archive) Context(ctx context.Context, session, leaf string) (*Path, *Context, error) {
	s, err := a.resolve(ctx, session)
	if err != nil {
		return nil, nil, err
	}
	d := Dialect(s.Dialect)
	switch d {
	case jsonl.Messages, jsonl.Claude, jsonl.Codex:
	default:
		p, c, err := a.piContext(ctx, session, leaf)
		if c != nil {
			c.Dialect = d
		}
		return p, c, err
	}
	if leaf == "" && s.ActiveLeaf == nil {
		if err := a.fresh(s); err != nil {
			return nil, nil, err
		}
		return &Path{Session: a.sessionOf(s)}, emptyContext(d), nil
	}
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, err
	}
	path, err := readPath(p, func(e Entry) bool { return contextLine(d, e.Type, deref(e.Role)) })
	if err != nil {
		return nil, nil, err
	}
	var header json.RawMessage
	if d == jsonl.Codex && len(path) > 0 {
		if header, err = codexHeader(p.Session, path[0].Offset); err != nil {
			return nil, nil, err
		}
	}
	kids := &indexChildren{a: a, ctx: ctx, sid: s.SID, p: p, path: path}
	c, err := AgentContext(d, path, kids.of, header)
	if err == nil {
		err = kids.err
	}
	if kids.f != nil {
		kids.f.Close()
	}
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) && je.Path == "" {
			je.Path = p.Session.Path
		}
		return nil, nil, err
	}
	return p, c, nil
}

// indexChildren gives AgentContext the children of an entry from the
// index, loaded at the first call (most paths never need them) and read
// back from the file; the first error is kept in err and ends the lookups.
type indexChildren struct {
	a    *Archive
	ctx  context.Context
	sid  int64
	p    *Path
	path []FileEntry
	kids map[string][]index.Entry // parent id -> children in file order
	read map[string][]FileEntry   // parent id -> children with their lines, as given
	f    SessionFile
	err  error
}

func (k *indexChildren) of(id string) []FileEntry {
	if k.err != nil {
		return nil
	}
	if k.kids == nil {
		rows, err := k.a.db.EntriesOf(k.ctx, k.sid)
		if err != nil {
			k.err = err
			return nil
		}
		k.kids = map[string][]index.Entry{}
		for _, e := range rows {
			if e.ParentID != nil {
				k.kids[*e.ParentID] = append(k.kids[*e.ParentID], e)
			}
		}
		if k.f, err = k.p.Session.open(); err != nil {
			k.err = err
			return nil
		}
	}
	if out, ok := k.read[id]; ok {
		return out
	}
	var out []FileEntry
	for _, e := range k.kids[id] {
		j := jsonlEntry(entryOf(e))
		if contextLine(jsonl.Claude, e.Type, deref(e.Role)) {
			raw, err := readRow(k.f, k.p.Session.Path, e)
			if err != nil {
				k.err = err
				return nil
			}
			j.Raw = raw
		}
		out = append(out, j)
	}
	if k.read == nil {
		k.read = map[string][]FileEntry{}
	}
	k.read[id] = out
	return out
}

// codexHeader is the first session_meta line of the codex session s
// among the lines before byte end (the first entry's offset), nil when
// there is none (a legacy header has no model_provider to give).
func codexHeader(s *Session, end int64) (json.RawMessage, error) {
	path := s.Path
	f, err := s.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(io.NewSectionReader(f, 0, end))
	for {
		line, err := r.ReadBytes('\n')
		line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
		if len(line) > 0 && jsString(jsonl.Field(line, "type")) == "session_meta" {
			return line, nil
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errMsg(err)).In(path)
		}
	}
}

// piContext is Context for pi and plain (SPEC §4.1): the path by CTE, the lines
// BuildContext needs read back by offset and checked against their CRC-32,
// then BuildContext. Errors: those of Path, and stale_index when a line
// cannot be read back or no longer is what the index saw.
//
// A session without entries (a header alone) has the empty context, as pi
// gives it: no messages, thinking level "off", no model.
func (a *Archive) piContext(ctx context.Context, session, leaf string) (*Path, *Context, error) {
	if leaf == "" {
		s, err := a.resolve(ctx, session)
		if err != nil {
			return nil, nil, err
		}
		if s.ActiveLeaf == nil {
			if err := a.fresh(s); err != nil {
				return nil, nil, err
			}
			c, _ := BuildContext(nil)
			return &Path{Session: a.sessionOf(s)}, c, nil
		}
	}
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, err
	}
	path, err := readPath(p, func(e Entry) bool { return contextTypes[e.Type] })
	if err != nil {
		return nil, nil, err
	}
	c, err := BuildContext(path)
	if err != nil {
		var je *errs.Error
		if errors.As(err, &je) {
			je.Path = p.Session.Path
		}
		return nil, nil, err
	}
	c.Version = p.Session.Version
	return p, c, nil
}
