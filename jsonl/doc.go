// Package jsonl reads session files: the committed log of SPEC §2 and the
// dialects of SPEC §3 (pi, plain, messages, claude, codex).
//
// A session file is split on LF only (Scanner, scanner.go). A line ending
// in LF is committed; the bytes after the last LF are the tail (tail.go),
// which is reported as an unterminated_tail warning when it holds anything
// but JSON whitespace and is never parsed. Every committed line keeps its
// physical line number (blank lines count) and the byte offset where it
// starts, and must be one JSON object (line.go).
//
// Read decides the dialect from the first parseable line (reader.go),
// validates every line against it (one file per dialect: dialect_pi.go,
// dialect_plain.go, dialect_messages.go, dialect_claude.go,
// dialect_codex.go; the decision itself in decide.go), and
// hands each entry to a callback in file order: Salvage mode turns bad
// lines into diagnostics, Strict mode stops at the first one. Entry.Raw
// holds the committed line's bytes exactly as they are in the file.
// ReadFrom goes on from where an earlier read of a grown file stopped.
//
// The tree rules' errors (duplicate_id, missing_parent, cycle,
// unknown_entry) are built here (tree.go), as *errs.Error values, because
// the tree rules (archive), the index's recursive CTE (index) and the
// writer all report them.
//
// # Caveats
//
//   - encoding/json matches struct keys case-insensitively, so lines are
//     decoded into map[string]json.RawMessage: keys are exact and values stay
//     raw. A key given twice keeps its last value, as JSON.parse does in pi.
//   - Invalid UTF-8 is checked before decoding, because encoding/json would
//     quietly replace it with U+FFFD.
//   - An escaped lone UTF-16 surrogate ("\ud83d" alone) is valid JSON and
//     keeps its line, with a lone_surrogate warning naming the first such
//     string's field path (SPEC §2.9); decoded strings (ids, names, search
//     text) hold U+FFFD there, so two ids that differ only in which lone
//     half they escape read as the same id.
//   - A pi version 1 file remembers one id per line to map
//     firstKeptEntryIndex; all other reads use memory bounded by the longest
//     line.
//   - An oh-my-pi title line is recognised only as the first non-blank line,
//     right before the header.
package jsonl
