package mcp

import (
	"context"
	"encoding/json"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/jsondoc"
)

// SessionsArgs are the arguments of sessions (grove sessions' flags).
type SessionsArgs struct {
	Workspace string `json:"workspace,omitempty" jsonschema:"only sessions whose workspace (the directory the session worked in) is this directory or below it: /a/b takes /a/b and /a/b/c, not /a/bc; a Windows path or a workspace as workspaces lists it is taken as written; a relative path is from grove mcp's working directory"`
	Dialect   string `json:"dialect,omitempty" jsonschema:"only sessions of this dialect: pi, plain, messages, claude (Claude Code) or codex"`
	First     string `json:"first,omitempty" jsonschema:"only sessions whose first user message (its first 200 characters) contains this text, ignoring case"`
	All       bool   `json:"all,omitempty" jsonschema:"count every leaf, the agent's recording artifacts too (parallel tool results, hook progress lines, compaction replays, /command siblings); by default leaves counts the real leaves, the branches a person made"`
	Paging
}

// WorkspacesArgs are the arguments of workspaces.
type WorkspacesArgs struct {
	Workspace string `json:"workspace,omitempty" jsonschema:"only workspaces that are this directory or below it (/a/b takes /a/b and /a/b/c, not /a/bc); a relative path is from grove mcp's working directory"`
	Dialect   string `json:"dialect,omitempty" jsonschema:"count only sessions of this dialect: pi, plain, messages, claude (Claude Code) or codex"`
	Paging
}

// FilterArgs are the arguments of leaves and branches.
type FilterArgs struct {
	Session   string `json:"session,omitempty" jsonschema:"only this session: its id, a unique prefix of its id (4+ characters) or its file's path, as sessions lists them"`
	Workspace string `json:"workspace,omitempty" jsonschema:"only sessions whose workspace (the directory the session worked in) is this directory or below it: /a/b takes /a/b and /a/b/c, not /a/bc; a Windows path or a workspace as workspaces lists it is taken as written; a relative path is from grove mcp's working directory"`
	Dialect   string `json:"dialect,omitempty" jsonschema:"only sessions of this dialect: pi, plain, messages, claude (Claude Code) or codex"`
	All       bool   `json:"all,omitempty" jsonschema:"every leaf and branch point with its kind (branch, parallel, progress, replay, command); by default only the real ones, the branches a person made"`
	Paging
}

const pagingText = " The answer is bounded by budget (bytes, default 16384): a longer one comes in pages, each with page {from, count, of} and, while more remain, next_cursor to pass as cursor with the same arguments; a page never holds part of an element."

func (s *Server) addListTools() error {
	if err := add(s, tool[SessionsArgs]{
		name: "sessions",
		description: "List the indexed coding-agent sessions (pi, Claude Code, Codex, plain JSONL), most recently modified first, each sub-agent or fork right under its parent: " +
			`{"sessions":[{"id","source","path","dialect","workspace","name","first_message","parent_session","entries","leaves","created","modified","state","diagnostics":[...]}]}` +
			" (grove sessions --json). state is ok, needs-repair, damaged or unsupported; diagnostics name each bad line with its line and byte offset." + pagingText,
		asked: func(*SessionsArgs) asked { return asked{} },
		build: func(ctx context.Context, a *archive.Archive, in *SessionsArgs, _ *cursor) (*answer, error) {
			if err := checkDialect(in.Dialect); err != nil {
				return nil, err
			}
			if in.First != "" && archive.NormalizeText(in.First) == "" {
				return nil, usage("first: want some text to look for, got %q", in.First)
			}
			ws, err := workspace(ctx, a, in.Workspace)
			if err != nil {
				return nil, err
			}
			doc, err := jsondoc.ListSessions(ctx, a, archive.Filter{Workspace: ws, Dialect: in.Dialect, All: in.All}, in.First)
			if err != nil {
				return nil, err
			}
			return &answer{doc: doc, paging: paging{members: []string{"sessions"}, noun: "session"}, snapshot: true}, nil
		},
	}); err != nil {
		return err
	}
	if err := add(s, tool[WorkspacesArgs]{
		name: "workspaces",
		description: "List the workspaces (the directories sessions worked in) with their sessions and entries, most recent first: " +
			`{"workspaces":[{"workspace","sessions","entries","modified"}]}` + " (grove workspaces --json)." + pagingText,
		asked: func(*WorkspacesArgs) asked { return asked{} },
		build: func(ctx context.Context, a *archive.Archive, in *WorkspacesArgs, _ *cursor) (*answer, error) {
			if err := checkDialect(in.Dialect); err != nil {
				return nil, err
			}
			ws, err := workspace(ctx, a, in.Workspace)
			if err != nil {
				return nil, err
			}
			doc, err := jsondoc.ListWorkspaces(ctx, a, ws, in.Dialect)
			if err != nil {
				return nil, err
			}
			return &answer{doc: doc, paging: paging{members: []string{"workspaces"}, noun: "workspace"}, snapshot: true}, nil
		},
	}); err != nil {
		return err
	}
	if err := add(s, tool[FilterArgs]{
		name: "leaves",
		description: "List the leaves (entries no entry names as parent: the ends of a session's branches), newest activity first, each with its depth, label and the last user message on its path: " +
			`{"leaves":[{"session","id","line","type","role","depth","timestamp","active","preview","label","session_name","path","stale"}]}` +
			" (grove leaves --json). active marks the session's active leaf; stale marks a file changed since it was indexed (no preview). Give session and id to path, messages or context to read one." + pagingText,
		asked: func(in *FilterArgs) asked { return asked{session: in.Session} },
		build: func(ctx context.Context, a *archive.Archive, in *FilterArgs, _ *cursor) (*answer, error) {
			f, err := filterOf(ctx, a, in)
			if err != nil {
				return nil, err
			}
			doc, err := jsondoc.ListLeaves(ctx, a, f)
			if err != nil {
				return nil, err
			}
			return &answer{doc: doc, paging: paging{members: []string{"leaves"}, noun: "leaf", with: "runs", key: pathOf}, snapshot: true}, nil
		},
	}); err != nil {
		return err
	}
	if err := add(s, tool[FilterArgs]{
		name: "branches",
		description: "List the branch points (entries two or more entries name as parent) with their child branches and the leaves each holds: " +
			`{"branches":[{"session","path","id","children":[ids],"leaves","label","preview","child_branches":[{"id","leaves","preview"}],"stale"}]}` +
			" (grove branches --json)." + pagingText,
		asked: func(in *FilterArgs) asked { return asked{session: in.Session} },
		build: func(ctx context.Context, a *archive.Archive, in *FilterArgs, _ *cursor) (*answer, error) {
			f, err := filterOf(ctx, a, in)
			if err != nil {
				return nil, err
			}
			doc, err := jsondoc.ListBranches(ctx, a, f)
			if err != nil {
				return nil, err
			}
			return &answer{doc: doc, paging: paging{members: []string{"branches"}, noun: "branch point"}, snapshot: true}, nil
		},
	}); err != nil {
		return err
	}
	return nil
}

// filterOf is the filter of leaves' and branches' arguments.
func filterOf(ctx context.Context, a *archive.Archive, in *FilterArgs) (archive.Filter, error) {
	if err := checkDialect(in.Dialect); err != nil {
		return archive.Filter{}, err
	}
	ws, err := workspace(ctx, a, in.Workspace)
	return archive.Filter{Session: in.Session, Workspace: ws, Dialect: in.Dialect, All: in.All}, err
}

// pathOf is the "path" member of a JSON object (a leaf's or a run's: the
// session's file), "" when it has none.
func pathOf(elem []byte) string {
	var o struct {
		Path string `json:"path"`
	}
	json.Unmarshal(elem, &o)
	return o.Path
}
