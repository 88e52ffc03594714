package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

// PathArgs are the arguments of path and messages (grove path SESSION
// [LEAF]).
type PathArgs struct {
	Session string `json:"session" jsonschema:"the session: its id, a unique prefix of its id (4+ characters) or its file's path, as sessions, leaves and search name it"`
	Leaf    string `json:"leaf,omitempty" jsonschema:"an entry id of the session: the path from the root to it is read (any entry will do, a search hit's id too); default the session's active leaf (the last entry of its file)"`
	Paging
}

// ContextArgs are the arguments of context (grove context [--llm]
// SESSION [LEAF]).
type ContextArgs struct {
	Session string `json:"session" jsonschema:"the session: its id, a unique prefix of its id (4+ characters) or its file's path, as sessions, leaves and search name it"`
	Leaf    string `json:"leaf,omitempty" jsonschema:"an entry id of the session: the context the model receives there; default the session's active leaf (the last entry of its file)"`
	LLM     bool   `json:"llm,omitempty" jsonschema:"messages as the model receives them (pi's convertToLlm: bash runs, custom messages and summaries become user messages); other dialects' messages already are"`
	Paging
}

// TreeArgs are the arguments of tree (grove tree [--full] [--depth N]
// [--flat] SESSION).
type TreeArgs struct {
	Session string `json:"session" jsonschema:"the session: its id, a unique prefix of its id (4+ characters) or its file's path, as sessions, leaves and search name it"`
	Full    bool   `json:"full,omitempty" jsonschema:"every entry: fold no linear run (by default of the entries between two shown ones on a chain only the last two are shown, the rest one fold node)"`
	Depth   int    `json:"depth,omitempty" jsonschema:"show this many levels of branching (a linear chain is one level); deeper branches become one cut node; 0 = no limit"`
	Flat    bool   `json:"flat,omitempty" jsonschema:"one flat list of nodes, each naming its parent node, instead of nested children: pages node by node (a nested tree pages by whole roots)"`
	All     bool   `json:"all,omitempty" jsonschema:"every entry, the agent's recording artifacts too, each child of a branch point with its kind; by default what lies below a child of another kind than branch is left out"`
	Paging
}

// messagesAnswer is grove messages --json with entryIds: the entry each
// message came from (entryIds[i] for messages[i]), which the command
// line's document does not name.
type messagesAnswer struct {
	Session  string            `json:"session"`
	Leaf     string            `json:"leaf"`
	Messages []json.RawMessage `json:"messages"`
	EntryIDs []string          `json:"entryIds"`
}

func (s *Server) addSessionTools() error {
	if err := add(s, tool[PathArgs]{
		name: "path",
		description: "The path from the root of a session to a leaf (by default its active leaf), root first: " +
			`{"session","leaf","path":[entry ids]}` + " (grove path --json). Read the messages on it with messages." + pagingText,
		asked: func(in *PathArgs) asked { return asked{in.Session, in.Leaf} },
		build: func(ctx context.Context, a *archive.Archive, in *PathArgs, c *cursor) (*answer, error) {
			if err := needSession(in.Session); err != nil {
				return nil, err
			}
			doc, err := jsondoc.PathTo(ctx, a, in.Session, leafOf(in.Leaf, c))
			if err != nil {
				return nil, err
			}
			return &answer{doc: doc, leaf: doc.Leaf, paging: paging{members: []string{"path"}, noun: "entry", hint: ""}}, nil
		},
	}); err != nil {
		return err
	}
	if err := add(s, tool[PathArgs]{
		name: "messages",
		description: "The messages on the path from the root of a session to a leaf (by default its active leaf), each exactly as the agent stored it (pi's, Anthropic's or Codex's message objects), other entries left out: " +
			`{"session","leaf","messages":[...],"entryIds":[...]}` + " (grove messages --json, with entryIds: the entry each message came from)." + pagingText,
		asked: func(in *PathArgs) asked { return asked{in.Session, in.Leaf} },
		build: func(ctx context.Context, a *archive.Archive, in *PathArgs, c *cursor) (*answer, error) {
			if err := needSession(in.Session); err != nil {
				return nil, err
			}
			return messagesOf(ctx, a, in.Session, leafOf(in.Leaf, c))
		},
	}); err != nil {
		return err
	}
	if err := add(s, tool[ContextArgs]{
		name: "context",
		description: "What the model receives at a leaf of a session (by default its active leaf), by the rules of the session's agent: for pi the last compaction's summary and the entries kept after it, branch summaries and custom messages; for Claude Code and Codex their own rebuild. " +
			`{"session","leaf","messages":[...],"keptEntryIds":[...],"thinkingLevel","model":{"provider","modelId"} or null}` +
			" (grove context --json): keptEntryIds[i] is the entry messages[i] came from." + pagingText,
		asked: func(in *ContextArgs) asked { return asked{in.Session, in.Leaf} },
		build: func(ctx context.Context, a *archive.Archive, in *ContextArgs, c *cursor) (*answer, error) {
			if err := needSession(in.Session); err != nil {
				return nil, err
			}
			doc, err := jsondoc.ContextAt(ctx, a, in.Session, leafOf(in.Leaf, c), in.LLM)
			if err != nil {
				return nil, err
			}
			return &answer{doc: doc, leaf: doc.Leaf, paging: paging{members: []string{"messages", "keptEntryIds"}, noun: "message", hint: ""}}, nil
		},
	}); err != nil {
		return err
	}
	if err := add(s, tool[TreeArgs]{
		name: "tree",
		description: "A session's entry tree: branch points, leaves, labels, the active leaf; long linear runs folded unless full. " +
			`{"session","roots":[node]}, each node {"id","type","role","label","active","preview","children":[node]}` +
			`; with flat {"session","nodes":[node]}, each node with "node" (its place) and "parent_node" instead of children` +
			" (grove tree --json). A node with id null is no entry: type fold stands for folded entries, type cut for branches depth cut." + pagingText,
		asked: func(in *TreeArgs) asked { return asked{session: in.Session} },
		build: func(ctx context.Context, a *archive.Archive, in *TreeArgs, c *cursor) (*answer, error) {
			if err := needSession(in.Session); err != nil {
				return nil, err
			}
			if in.Depth < 0 {
				return nil, usage("depth: want 0 (no limit) or more, got %d", in.Depth)
			}
			t, err := jsondoc.Tree(ctx, a, in.Session, archive.TreeOptions{Full: in.Full, Depth: in.Depth, All: in.All})
			if err != nil {
				return nil, err
			}
			if c != nil && c.Entries != len(t.Entries) {
				return nil, staleCursor(fmt.Sprintf("session %s changed since the first page of this tree (%d entries then, %d now): ask again without cursor", t.Session.SessionID, c.Entries, len(t.Entries)))
			}
			ans := &answer{entries: len(t.Entries), paging: paging{members: []string{"roots"}, noun: "root", hint: "or give flat true, which pages node by node"}}
			ans.write = func(b *bytes.Buffer) error { return jsondoc.WriteTree(b, t.Session.SessionID, t) }
			if in.Flat {
				ans.paging = paging{members: []string{"nodes"}, noun: "node", hint: ""}
				ans.write = func(b *bytes.Buffer) error { return jsondoc.WriteTreeFlat(b, t.Session.SessionID, t) }
			}
			return ans, nil
		},
	}); err != nil {
		return err
	}
	return nil
}

// messagesOf is grove messages' document (jsondoc.MessagesTo) with
// entryIds, its messages read from the file only as a page needs them
// (archive.MessageEntries, archive.ReadMessage: what Archive.Messages
// reads, one by one), so that a page of a long session costs its own
// messages, not all of them. The file is closed once the page is made.
func messagesOf(ctx context.Context, a *archive.Archive, session, leaf string) (*answer, error) {
	if err := a.RefuseCompressed(ctx, session); err != nil {
		return nil, err
	}
	p, err := a.Path(ctx, session, leaf)
	if err != nil {
		return nil, err
	}
	es := archive.MessageEntries(p)
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.EntryID
	}
	ms, err := jsondoc.Split(&messagesAnswer{p.Session.SessionID, p.Leaf, []json.RawMessage{}, ids}, "messages", "entryIds")
	if err != nil {
		return nil, err
	}
	f, err := a.OpenSession(p.Session)
	if err != nil {
		return nil, err
	}
	ps := partsOf(ms)
	for _, part := range ps {
		if part.key == "messages" {
			part.n = len(es)
			part.elem = func(i int) ([]byte, error) {
				m, err := archive.ReadMessage(f, p, es[i])
				if err != nil {
					return nil, err
				}
				return jsondoc.Compact(m)
			}
		}
	}
	return &answer{parts: ps, close: f.Close, leaf: p.Leaf, paging: paging{members: []string{"messages", "entryIds"}, noun: "message", hint: ""}}, nil
}

// leafOf is the leaf a call reads: the one the first page read when c
// goes on with an answer, else the one asked for.
func leafOf(leaf string, c *cursor) string {
	if c != nil {
		return c.Leaf
	}
	return leaf
}
