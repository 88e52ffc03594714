// Package mcp is grove mcp (SPEC §12): a Model Context Protocol server,
// on the official Go SDK, whose tools are grove's reading commands for a
// coding agent. search, sessions, workspaces, leaves, branches, path,
// messages, context and tree each take the flags of the command of that
// name (their input schemas inferred from the *Args structs and their
// jsonschema tags) and answer its --json document, built by
// internal/jsondoc as the command line builds it; messages adds entryIds.
//
// Every answer is bounded (page.go): budget bytes of JSON, default
// DefaultBudget; a document that does not fit comes in pages of whole
// elements of its list, each with "page" and, while more remain,
// "next_cursor". A cursor carries the tool, the call's arguments (checked
// when it comes back), where the next page starts, and what the first
// page fixed: the leaf a path was read to, the size of a tree.
//
// A failure is an isError result holding SPEC §8's error object, naming
// the session and entry asked about (server.go: failure); an argument the
// SDK's schema check refuses becomes the same, code usage
// (argumentErrors).
//
// The server opens the index with archive.OpenExisting on the first call
// that needs it, and keeps it: it never creates, writes or locks it, so a
// grove watch or grove serve may refresh it meanwhile.
//
// # Caveats
//
//   - Each page builds the command's whole document and cuts its page
//     from it: paging a long session costs the whole answer per page.
//   - A listing (sessions, leaves, hits) that changes between pages may
//     repeat or leave out an element at a page's edge; only a tree that
//     changed is refused (stale_index).
//   - The index is as fresh as the last refresh; a session file changed
//     since is stale_index for path, messages, context and tree.
package mcp
