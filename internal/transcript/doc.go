// Package transcript renders one path of a session (SPEC §4: the entries
// from a root down to a leaf) as a document a person reads: Markdown, or
// one self-contained HTML page. It is what grove export writes for
// --format md and --format html.
//
// Both formats show the same things in the same order: a title (the pi
// session name, else "Session <id>"), a facts block (session id, workspace,
// file, dialect, leaf, how many entries and messages, the time span in UTC),
// then every entry of the path with its time and id in small print and its
// label if it has one. For pi's session format (versions 1 to 3) and the
// plain dialect (SPEC §3):
//
//   - user and assistant text is Markdown and stays Markdown (in HTML a
//     user's paragraph keeps its line breaks, CSS white-space: pre-line:
//     what a person typed is laid out as typed); thinking is
//     folded under <details>; tool calls show their name and arguments (a
//     bash command as a shell block, file contents and multi-line strings as
//     code blocks, the rest as JSON in the order written);
//   - tool results, shell output and JSON are verbatim code blocks, folded
//     after 40 lines but never cut; an edit's details.diff is a diff block;
//     isError, a failed or cancelled command and an error stopReason are
//     marked;
//   - images are a placeholder "[image: image/png, 12.3 KB]" in Markdown
//     and embedded as a data URL in HTML (PNG, JPEG, GIF and WebP whose data
//     is base64; anything else is a placeholder);
//   - compactions and branch summaries are marked boxes; model, thinking
//     level, session name, label and metadata changes are one-line notes;
//     extension data and entries of unknown types are folded JSON.
//
// The messages, claude and codex dialects (SPEC §3.4–3.6, FORMATS.md) are
// shown the same way, by Doc.Dialect and the entry types jsonl/dialect.go
// gives them:
//
//   - Anthropic messages (a messages-log line, a Claude user or assistant
//     line): text as Markdown, thinking folded, a tool_use's input as its
//     call's arguments, a tool_result titled by the tool_use it answers
//     (paired by tool_use_id) and fenced, is_error marked; images are a
//     marker of their type and size, never embedded;
//   - Claude: a compact_boundary is a compaction box saying the entry it
//     continues from (logicalParentUuid), the isCompactSummary line is the
//     summary's box, isMeta lines are marked as injected, the CLI's
//     wrapper tags become a slash command, a shell command or its output;
//     system, hook progress and attachment lines are notes; sidechain
//     lines are marked;
//   - Codex: response items by type (messages by role, developer
//     instructions and injected context folded, reasoning summaries folded
//     and encrypted reasoning never shown, function-call arguments pretty
//     printed when they are JSON, outputs fenced, apply_patch as a diff),
//     compacted as a compaction box, rollbacks and aborted turns marked,
//     a turn_context as a one-line note. The event_msg copies of messages
//     and reasoning (when the path has response items of that kind), token
//     counts and a turn_context that repeats the one before are not shown;
//     the facts block counts them.
//
// Rendering never fails on what a file holds: a line that is not an object,
// a missing field or a field of the wrong type shows what is there and the
// entry's JSON. The output depends only on the Doc (same Doc, same bytes).
//
// # Caveats
//
//   - Markdown in messages is parsed with goldmark (CommonMark + GFM) to
//     make it safe; GitHub's renderer (cmark-gfm) may differ on edge cases.
//     Raw HTML in a message is escaped so it shows as text, in both formats.
//     A message whose Markdown leaves a block open (an unclosed code fence)
//     is shown verbatim in a code block instead, so it cannot swallow the
//     entries after it.
//   - In HTML, links keep only http, https, mailto and relative targets, and
//     Markdown images become links to their source: the page loads nothing.
//   - Line breaks inside one-line values (a tool name, a label, a session
//     name) are shown as "↵" in Markdown; CR and CRLF in text become LF.
//   - Invalid UTF-8 and NUL are shown as U+FFFD.
//   - Sizes use SI units (1 KB = 1000 bytes). Times are the entries' own;
//     entries without one show none and do not count in the time span.
//   - Folded HTML (<details>) prints folded, except in browsers that support
//     ::details-content, where print opens it.
//   - A text of 1 MiB or more (hugeText) is not parsed as Markdown: the
//     parser's tree costs several times the text. HTML shows it escaped
//     and preformatted; Markdown writes it as it is, or, when it holds raw
//     HTML or a code fence, verbatim in a code block.
//   - The document is written as it is made, one entry at a time; only
//     that entry's text and images are held besides the path's lines
//     (with Doc.Release, not even the lines already shown; with Doc.Line,
//     no line but the one being shown) (SPEC §2.8).
package transcript
