// Package corpusgen writes deterministic synthetic archives of agent
// sessions for grove's benchmarks: pi version 3 session files laid out as
// pi lays them out, plain-dialect files (SPEC §3.1), Claude Code
// transcripts (SPEC §3.4), Codex rollouts (SPEC §3.5) and messages logs
// (SPEC §3.6) in the mix Options asks for, forks, branches,
// compactions, labels, names, Chinese text, large base64 images and a
// few damaged files, with a manifest that says what is where.
//
// Generate(ctx, dir, Options) writes
//
//	dir/pi/--<cwd>--/<ISO time, ':' and '.' → '-'>_<uuid>.jsonl   pi (SPEC §3.2)
//	dir/plain/<cwd>/<uuid>.jsonl                                  plain (SPEC §3.1)
//	dir/claude/projects/<claude cwd>/<uuid>.jsonl                 claude (SPEC §3.4)
//	dir/claude/projects/<claude cwd>/<uuid>/subagents/agent-<17 hex>.jsonl  and .meta.json
//	dir/codex/sessions/YYYY/MM/DD/rollout-<UTC time>-<uuid>.jsonl codex (SPEC §3.5)
//	dir/messages/<cwd>/<uuid>.jsonl                               messages (SPEC §3.6)
//	dir/manifest.json                                             the Manifest
//
// where <cwd> is the session's working directory with its leading '/' (or
// '\') dropped and '/', '\' and ':' replaced by '-' (pi's rule:
// /home/ana/src/shop → --home-ana-src-shop--), and <claude cwd> is the cwd
// with every character outside [A-Za-z0-9] replaced by '-' (Claude Code's
// rule: -home-ana-src-shop).
//
// # Other dialects
//
// Claude files have the shape of 2.1.x (FORMATS.md §1.12): a
// permission-mode line, a file-history-snapshot before each prompt, one
// line per content block of a response chained by parentUuid, tool
// results parented to their own tool_use line (so parallel calls leave
// dead-end leaves) with sourceToolAssistantUUID and toolUseResult, rewinds
// (a new prompt under an earlier assistant line), compact_boundary roots
// with logicalParentUuid and their isCompactSummary line, custom-title and
// last-prompt lines, and sub-agents started by a Task call whose result
// names the agent. Codex rollouts (FORMATS.md §2.9) have a session_meta
// header with base instructions, an environment context, each prompt,
// answer and reasoning summary followed by its event_msg copy,
// turn_context, shell function_calls with arguments as a JSON string,
// apply_patch custom tool calls, token counts, and compacted items with a
// replacement_history. Messages logs (FORMATS.md §3) are bare {role,
// content} lines with the chapter's tools. Text, sizes, markers, images
// and damage are drawn as for pi; a missing_parent damage drawn for a
// codex or messages file (which have no parents) becomes a bad_line.
// With no claude, codex or messages share the output is that of
// generator version 2, byte for byte.
//
// The same Options (Seed included) give byte-identical files: nothing reads
// the clock (times start at BaseTime, 2026-01-05T09:00:00Z, and advance by
// drawn gaps), no map order or goroutine schedule reaches the output, and
// every session draws from its own random stream, so any number of workers
// writes the same bytes.
//
// # Calibration
//
// Sizes and mixes come from a real pi session (1,019 lines, 974,031 bytes,
// a pi version 1 file of a TUI port with Claude Sonnet 4.5), measured once;
// the file itself is not part of the repository. Text lengths are in
// characters, line lengths in bytes.
//
//	lines                 mean 956, p50 622, p90 1,844, p99 5,552, max 49,232
//	entry types           message 89.8 %, thinking_level_change 10.1 %, model_change 0.1 %
//	message roles         assistant 49.6 %, toolResult 40.8 %, user 9.6 %
//	bytes by role         toolResult 479 KB, assistant 458 KB, user 26 KB
//	user lines            p50 221, p90 351;  text p50 74, p90 204, max 2,023
//	assistant lines       p50 676, p90 1,686, max 21,977
//	assistant blocks      391 toolCall, 244 text, 1 thinking (138 chars, signed)
//	assistant text        p50 95, p90 530, max 2,096
//	stopReason            toolUse 81 %, stop 14 %, aborted 4.6 %, error 0.2 %
//	tool calls            bash 49 %, edit 37 %, read 13 %, write 1 %
//	tool call arguments   JSON p50 98, p90 1,155, max 9,479
//	toolResult lines      p50 769, p90 2,294, max 49,232; isError 5.1 %
//	tool result text      read p50 1,557, p90 6,568, max 43,245
//	                      bash p50 85, p90 1,039, max 5,158
//	                      edit ~113 (a fixed sentence; the diff is in details)
//	                      write ~73
//	gaps between entries  p50 3.4 s, p90 11.1 s, mean 9.5 s
//
// The generator draws these as log-normal distributions fitted to p50 and
// p90 (turn.go). A 20 MB corpus with the default options (seed 1)
// measures, images aside:
//
//	lines                 mean 1,223, p50 702, p90 2,454, p99 8,224
//	message roles         assistant 47.8 %, toolResult 41.8 %, user 10.1 %, bashExecution 0.2 %
//	stopReason            toolUse 80 %, stop 14.7 %, aborted 5.1 %, error 0.2 %
//	tool calls            bash 50 %, edit 37 %, read 13 %, write 1 %
//	tool call arguments   JSON p50 63, p90 1,149
//	tool result text      read p50 1,488, p90 6,247; bash p50 111, p90 1,005
//	user text             p50 99, p90 221;  assistant text p50 123, p90 539
//
// # Text
//
// English prose alternates function words (Zipf, s = 1) with content
// words (Zipf–Mandelbrot, s = 1.05, q = 15), so "the" is about 5 % of
// words, the top content word ("file") about 1 %, and hundreds of words
// are rare; tool outputs hold code in the workspace's language, grep hits,
// listings, test runs and compiler errors; paths come from a per-workspace
// file list. Chinese turns (Options.ChineseShare) use a vocabulary of
// programming words (数据, 索引, 函数, ...) and whole sentences. Marker
// words with known rates (RareWord, UncommonWord, Phrase) and CommonWord
// give search benchmarks queries with known answers; Manifest counts them.
//
// # Caveats
//
//   - The text has realistic token statistics, not meaning: sentences are
//     word salad from the vocabulary.
//   - Thinking is on in 30 % of sessions, for 60 % of their assistant
//     messages, where the calibration file had it off; assistant lines are
//     larger than measured (mean 1.4 KB against 1.0 KB). The file's 10 %
//     of thinking_level_change entries (a user cycling levels by hand) is
//     not copied: level changes are rare here.
//   - parentSession in a fork's header is the parent's path relative to
//     the corpus directory, not an absolute path as pi writes, so that the
//     bytes do not depend on where the corpus is written.
//   - Bytes are identical for the same options on the same GOARCH; floating
//     point (log, exp, cos in the size draws) may round differently on
//     another architecture.
//   - Entry ids are 8 hex digits as pi's, unique within a session, not
//     across sessions.
//   - Images are random bytes behind a PNG signature: base64 of the right
//     size, not a picture.
//   - Forks are never damaged and never start from a damaged session; a
//     fork's parent is one of the last 8 planned pi sessions.
//   - Each session stops at the first entry that reaches its target size,
//     and text sizes are capped by what is left, so totals land within a
//     few percent of Options.Size; the big session is extra.
//   - Memory is bounded: per session being written, 29 bytes per entry
//     (ids, edges, offsets) plus its parent's when it is a fork, and line
//     buffers as large as the largest entry without an image; images are
//     streamed to the file.
//   - The other dialects are not calibrated on real files of theirs: they
//     reuse pi's text and size draws, so a Claude corpus has more, smaller
//     lines (one per content block, plus metadata lines) and a Codex one
//     more lines (the event_msg copies) for the same bytes. Claude uuids
//     share their last group within a session. Forks (ForkRate) are pi,
//     Claude (--fork-session: the parent's lines up to the fork entry,
//     uuids kept, sessionId re-stamped, no forkedFrom) and Codex (header
//     forked_from_id, the parent's items up to a prompt with new envelope
//     times); no Claude /branch or Codex sub-agent copies. Codex file
//     names use UTC, where Codex uses local time.
//   - With Force, files of the same name are overwritten and other files
//     in the directory are left alone, so mixing corpora is possible.
package corpusgen
