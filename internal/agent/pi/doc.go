// Package pi is grove's knowledge of the pi coding agent
// (@mariozechner/pi-coding-agent, SPEC §3.2): where its sessions live,
// how a session names itself, the preview of its entries, its model
// context (buildSessionContext, SPEC §4.1) and what its model receives
// (convertToLlm, --llm), and its fork (export --format jsonl, SPEC §5).
//
// Its lines are read by jsonl/dialect_pi.go (a header, versions 1 to 3),
// their search text by jsonl/text.go. pi itself is the reference: where
// SPEC is silent, grove answers what pi answers for the same file
// (archive/pidiff_test.go runs pi on the same files).
//
// The plain dialect (package plain) is pi's entry format without a
// header and uses the rules here for its entries.
//
// # Caveats
//
//   - The fork migrates version 1 and 2 entries as pi does (ids added,
//     hookMessage renamed); only version 3 lines are copied byte for byte.
//   - The context reads back only the lines of entry types that can change
//     it (ContextTypes).
package pi
