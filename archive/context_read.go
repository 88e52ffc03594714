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
	"github.com/grove-sessions/grove/internal/agent"
)

// SessionContext is the model context at leaf ("" for the active leaf) of
// the session s read whole, by the rules of its dialect's agent (SPEC
// §4.1, §3.4–3.6): PathTo, then the agent's Context, given the session's
// pi version (from s.Header), the children of an entry taken from
// s.Entries, and the header line from s.Header (else read from the file
// before the first entry). It is the pure side that Archive.Context must
// agree with. Errors: those of PathTo, of the rules, and of reading the
// file for the header.
func SessionContext(s *File, leaf string) (*Context, error) {
	if leaf == "" {
		leaf = ActiveLeaf(s.Dialect, s.Entries)
	}
	if leaf == "" {
		return (*Context)(agent.EmptyContext(s.Dialect)), nil
	}
	path, err := PathTo(s.Entries, leaf)
	if err != nil {
		return nil, err
	}
	a := agent.Of(s.Dialect)
	in := agent.ContextInput{Path: path}
	if s.Header != nil {
		in.Version = s.Header.Version
	}
	var kids map[string][]FileEntry
	in.Children = func(id string) []FileEntry {
		if kids == nil {
			kids = map[string][]FileEntry{}
			for _, e := range s.Entries {
				if !e.Root {
					kids[e.ParentID] = append(kids[e.ParentID], e)
				}
			}
		}
		return kids[id]
	}
	in.Header = func() (json.RawMessage, error) {
		if s.Header != nil && s.Header.Raw != nil {
			return s.Header.Raw, nil
		}
		return headerLine(&Session{Path: s.Path}, path[0].Offset, a.ContextHeader)
	}
	c, err := a.Context(in)
	return (*Context)(c), err
}

// Context answers `grove context` by the rules of the session's agent
// (SPEC §4.1, §3.4–3.6): the model context at leaf ("" for the active
// leaf) with the path it was built from. The path comes by CTE; the lines
// the agent's rules read (its ContextLine) are read back by offset and
// checked against their CRC-32; the session's pi version comes from the
// index; the children of an entry (Claude Code's message lines and tool
// results off the path) are the index's entries of the session, with
// their lines read back, loaded only when the rules ask; the header line (Codex's session_meta)
// is read from the file before the first entry when the rules ask. A
// session without entries has the empty context (no messages, thinking
// level "off", no model: pi's answer for a header alone). Errors: those of
// Path, and stale_index when a line cannot be read back or no longer is
// what the index saw.
func (a *Archive) Context(ctx context.Context, session, leaf string) (*Path, *Context, error) {
	s, err := a.resolve(ctx, session)
	if err != nil {
		return nil, nil, err
	}
	d := Dialect(s.Dialect)
	if leaf == "" && s.ActiveLeaf == nil {
		if err := a.fresh(s); err != nil {
			return nil, nil, err
		}
		return &Path{Session: a.sessionOf(s)}, (*Context)(agent.EmptyContext(d)), nil
	}
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, nil, err
	}
	rules := agent.Of(d)
	path, err := readPath(p, func(e Entry) bool { return rules.ContextLine(e.Type, deref(e.Role)) })
	if err != nil {
		return nil, nil, err
	}
	kids := &indexChildren{a: a, ctx: ctx, sid: s.SID, p: p, path: path, rules: rules}
	c, err := rules.Context(agent.ContextInput{Path: path, Version: p.Session.Version, Children: kids.of,
		Header: func() (json.RawMessage, error) { return headerLine(p.Session, path[0].Offset, rules.ContextHeader) }})
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
	return p, (*Context)(c), nil
}

// indexChildren gives an agent's Context the children of an entry from
// the index, loaded at the first call (most paths never need them) and
// read back from the file (the lines rules.ContextLine picks); the first
// error is kept in err and ends the lookups.
type indexChildren struct {
	a     *Archive
	ctx   context.Context
	sid   int64
	p     *Path
	path  []FileEntry
	rules agent.Agent
	kids  map[string][]index.Entry // parent id -> children in file order
	read  map[string][]FileEntry   // parent id -> children with their lines, as given
	f     SessionFile
	err   error
}

func (k *indexChildren) of(id string) []FileEntry {
	if k.err != nil {
		return nil
	}
	if k.kids == nil {
		rows, err := k.a.db().EntriesOf(k.ctx, k.sid)
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
		if k.rules.ContextLine(e.Type, deref(e.Role)) {
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

// headerLine is the first line of the session s, among the lines before
// byte end (the first entry's offset), that is reports true for (an
// agent's ContextHeader), with a leading BOM and white space trimmed; nil
// when there is none. Errors: stale_index when the file cannot be read.
func headerLine(s *Session, end int64, is func(line []byte) bool) (json.RawMessage, error) {
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
		if len(line) > 0 && is(line) {
			return line, nil
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, errs.Wrap(errs.CodeStaleIndex, err, "cannot read the session file: "+errs.PathReason(err)).In(path)
		}
	}
}

// ContextStart is the index on p (Path's answer) of the first entry the
// model's context still holds at p's leaf, when a compaction on the path
// left the entries before it out; -1 when the model saw the path from its
// root, by the rules of the session's agent (its ContextStart: pi's last
// compaction and its firstKeptEntryId, SPEC §4.1; Codex's newest
// replacement_history, FORMATS.md §2.5; Claude Code's path already starts
// at its compact_boundary). It reads no line but those the rules ask for
// (Codex's compacted ones), so a path of 100,000 entries costs what its
// compactions cost, not a context. Errors: stale_index for a line that
// cannot be read back or changed since it was indexed, and ctx's.
func (a *Archive) ContextStart(ctx context.Context, p *Path) (int, error) {
	path := make([]FileEntry, len(p.Entries))
	for i, e := range p.Entries {
		path[i] = FileEntry{ID: e.EntryID, Type: e.Type, Line: e.Line, Offset: e.Offset, Length: e.Length}
		if e.FirstKept != nil {
			path[i].FirstKept = *e.FirstKept
		}
	}
	var f SessionFile
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	return agent.Of(p.Session.Dialect).ContextStart(ctx, path, func(i int) ([]byte, error) {
		if f == nil {
			var err error
			if f, err = p.Session.open(); err != nil {
				return nil, err
			}
		}
		return ReadLine(f, p.Session.Path, p.Entries[i])
	})
}
