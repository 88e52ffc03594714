// Package jsondoc builds the --json documents of grove's reading commands
// (SPEC §8): sessions, workspaces, leaves, branches, path, messages,
// context, tree and search, from archive's answers. The command line
// writes them; grove mcp answers them as its tools' structured results
// (SPEC §12), so both give the same document for the same question.
//
// A builder takes an open *archive.Archive and the command's arguments as
// the command line has checked them (a workspace already made a filter
// with Archive.WorkspaceFilter, a dialect one of archive.Dialects) and
// returns a document value whose encoding by Write is the command's --json
// answer, byte for byte. Fields tagged `json:"-"` carry what a front end
// needs beside the document (the sessions in listed order, the archive's
// own values) for its text output.
//
// Write and WriteStream write a document as the command line writes it:
// compact, HTML characters as they are, one line; WriteStream sends a
// []json.RawMessage member element by element, so a path holding a 50 MB
// line needs it once in memory, not three times (SPEC §2.8).
//
// The package imports archive and nothing else of grove but errs and
// small helpers: a front end that uses it still reaches the index and the
// session files through archive only.
//
// # Caveats
//
//   - A document is built whole in memory (WriteStream only saves the
//     copies of encoding); a page of it (grove mcp) is cut from the whole.
//   - The documents' member order is part of the answer: struct fields are
//     in the order the command line has always written them (a map's
//     members in sorted order, as encoding/json writes a map).
package jsondoc
