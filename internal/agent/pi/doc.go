// Package pi is grove's knowledge of the pi coding agent
// (@earendil-works/pi-coding-agent from 1.0, @mariozechner/pi-coding-agent
// before; SPEC §3.2): where its sessions live, how a session names itself,
// the preview of its entries, its model context (buildSessionContext,
// SPEC §4.1, as pi 1.6.0 has it: context edits, system messages, a
// compaction's systemMessage, null content filled), what its model
// receives (convertToLlm, --llm), which entries a context edit changed
// (ContextEdits, for search and transcripts), and its fork (export
// --format jsonl, SPEC §5).
//
// Its lines are read by jsonl/dialect_pi.go (a header, versions 1 to 3),
// their search text by jsonl/text.go. pi itself is the reference: where
// SPEC is silent, grove answers what pi answers for the same file
// (archive/pidiff_test.go runs pi 1.6.0 and 0.73.1 on the same files).
//
// The plain dialect (package plain) is pi's entry format without a
// header and uses the rules here for its entries.
//
// # Caveats
//
//   - The fork migrates version 1 and 2 entries as pi does (ids added,
//     hookMessage renamed; a version 1 context edit's targetId made null,
//     since pi's migration gives the entries ids it cannot name); only
//     version 3 lines are copied byte for byte.
//   - The context reads back only the lines of entry types that can change
//     it (ContextTypes); ContextEdits only those of EditTypes.
//   - pi 1.6 refuses a file with a BOM before its header; grove reads it
//     (SPEC §2), as pi 0.73.1 did.
package pi
