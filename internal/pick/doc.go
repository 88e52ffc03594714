// Package pick is grove pick (SPEC §12): a terminal picker over every
// session of every agent in the archive, newest first. Typing filters
// them at once by name, first message, workspace and id, and through the
// index's full text (grove search, the last word typed taken as a
// prefix), whose sessions join the list when the search answers; the
// selected session's leaves are shown beside it, newest first, the active
// one marked. Enter answers the resume command of the selected leaf
// (archive.Resume), asking first for the branch's first message when the
// agent needs one (an earlier Claude Code entry).
//
// It is a bubbletea model (Model) over package archive only, so tests
// drive it with keys and read its frames (teatest), and Run puts it in a
// real terminal: keys from standard input, the screen on standard error,
// standard output left for the command.
//
// # Caveats
//
//   - At most one full-text search runs at a time: keys typed while it
//     runs refilter by name at once, and the latest query is searched
//     when it answers, so a slow search never piles up behind fast typing.
//   - A search reads at most Options.SearchLimit hits (newest first): a
//     common word lists the sessions of its newest hits, not every one.
//   - Enter on a pi leaf other than the active one writes its fork (as
//     grove resume does) before the picker ends.
package pick
