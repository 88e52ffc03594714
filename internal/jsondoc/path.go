package jsondoc

import (
	"context"
	"encoding/json"

	"github.com/grove-sessions/grove/archive"
)

// Path is `grove path --json` (SPEC §8): the session, the leaf and the
// ids of the path from the root to it, root first.
type Path struct {
	Session string        `json:"session"`
	Leaf    string        `json:"leaf"`
	Path    []string      `json:"path"`
	Of      *archive.Path `json:"-"` // the archive's answer the document is made of
}

// PathTo is `grove path SESSION [LEAF]` over the index: the path to leaf
// (the active leaf when "") of session (an id, a unique id prefix or an
// indexed file's path). Errors: Archive.RefuseCompressed's and
// Archive.Path's (unknown_session, ambiguous_session, stale_index,
// unknown_entry and the tree errors of PathTo).
func PathTo(ctx context.Context, a *archive.Archive, session, leaf string) (*Path, error) {
	if err := a.RefuseCompressed(ctx, session); err != nil {
		return nil, err
	}
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(p.Entries))
	for i, e := range p.Entries {
		ids[i] = e.EntryID
	}
	return &Path{Session: p.Session.SessionID, Leaf: p.Leaf, Path: ids, Of: p}, nil
}

// Messages is `grove messages --json` (SPEC §8): the messages on the path
// to the leaf, each exactly as stored. Write it with WriteStream.
type Messages struct {
	Session  string            `json:"session"`
	Leaf     string            `json:"leaf"`
	Messages []json.RawMessage `json:"messages"`
	Of       *archive.Path     `json:"-"` // the path the messages are on
}

// MessagesTo is `grove messages SESSION [LEAF]` over the index. Errors:
// those of PathTo, and stale_index for a line that no longer holds what
// the index says (Archive.Messages).
func MessagesTo(ctx context.Context, a *archive.Archive, session, leaf string) (*Messages, error) {
	if err := a.RefuseCompressed(ctx, session); err != nil {
		return nil, err
	}
	p, msgs, err := a.Messages(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	return &Messages{Session: p.Session.SessionID, Leaf: p.Leaf, Messages: msgs, Of: p}, nil
}

// Context is `grove context --json` (SPEC §8, §4.1): the messages the
// model receives at the leaf, the entry each came from (KeptEntryIDs[i]
// for Messages[i]), the thinking level and the model. Write it with
// WriteStream.
type Context struct {
	Session       string            `json:"session"`
	Leaf          string            `json:"leaf"`
	Messages      []json.RawMessage `json:"messages"`
	KeptEntryIDs  []string          `json:"keptEntryIds"`
	ThinkingLevel json.RawMessage   `json:"thinkingLevel"`
	Model         *archive.Model    `json:"model"`
	Of            *archive.Path     `json:"-"` // the path walked
	Context       *archive.Context  `json:"-"` // the archive's answer the document is made of
}

// ContextOf is the document of the context mc at the end of p; with llm,
// mc as the model receives it (Context.ForLLM).
func ContextOf(p *archive.Path, mc *archive.Context, llm bool) *Context {
	if llm {
		mc = mc.ForLLM()
	}
	return &Context{Session: p.Session.SessionID, Leaf: p.Leaf, Messages: mc.Messages, KeptEntryIDs: mc.KeptEntryIDs,
		ThinkingLevel: mc.ThinkingLevel, Model: mc.Model, Of: p, Context: mc}
}

// ContextAt is `grove context [--llm] SESSION [LEAF]` over the index.
// Errors: those of PathTo, and Archive.Context's.
func ContextAt(ctx context.Context, a *archive.Archive, session, leaf string, llm bool) (*Context, error) {
	if err := a.RefuseCompressed(ctx, session); err != nil {
		return nil, err
	}
	p, mc, err := a.Context(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	return ContextOf(p, mc, llm), nil
}

// EntryIDs are the ids of the entries the messages came from, in order
// (EntryIDs()[i] for Messages[i]): archive.MessageEntries of the path.
// Nil for a document not made from a path of the index.
func (m *Messages) EntryIDs() []string {
	if m.Of == nil {
		return nil
	}
	ids := []string{}
	for _, e := range archive.MessageEntries(m.Of) {
		ids = append(ids, e.EntryID)
	}
	return ids
}
