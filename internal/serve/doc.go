// Package serve is grove serve's web front end (SPEC §9): server-rendered
// pages over package archive, as thin as cmd/grove. It never speaks SQL
// and never opens a file by a path a request names: a session is named by
// its id (or a unique prefix), and archive reads the file the index holds
// for it.
//
// Routes (Server):
//
//	/                      workspaces and the most recent sessions
//	/w?path=DIR            one workspace: its sessions and every leaf, newest first
//	/s/{session}           the session's tree, drawn as grove tree draws it (?full=1 unfolds)
//	/s/{session}/{leaf}    the transcript of the path to leaf (any entry), paged
//	                       PageEntries at a time around the leaf (?at=ENTRY: the page holding it)
//	/search?q=…            grove search with its filters as form fields
//	/api/…                 the CLI's --json documents (Options.API runs the CLI in process)
//	/events                Server-Sent Events: a notice when sessions change (Hub)
//	/static/{name}         the embedded script, stylesheets and icon, by name only
//
// Every entry of a transcript is an element with id="entry-{id}". After a
// branch point on the path comes a navigation to each of its children (the
// newest leaf of each sibling branch, at the sibling's first entry); where
// a compaction left earlier entries out of the model's context, a marked
// line says so; a path to an entry that is no leaf ends with the ways it
// goes on.
//
// Safety (guard.go): a Host that is not the listening address or localhost
// (with the port) is refused with 403, so a page of another site that
// rebinds its DNS name to 127.0.0.1 cannot read the archive; only GET and
// HEAD are served (405); every answer carries CSP, nosniff and
// no-referrer. Pages hold no inline script or style; every value goes
// through html/template; transcripts are archive's renderer (goldmark
// without raw HTML, links only http, https, mailto and in-page, a refused
// link shown as its text). Every page's text is written through
// visibleHTML, which shows control characters and bidirectional overrides
// as the command line does (internal/visible: \u202e), so session text
// cannot reorder a page.
//
// Live updates: Watch runs grove watch's passes and calls Hub.Notify with
// the ids of the sessions a pass changed; the page script (static/app.js)
// fetches its own URL again when its session is among them (any, for the
// listings) and swaps in the new <main>. The notice holds ids as one JSON
// line, never session text.
//
// # Caveats
//
//   - A transcript page of a long path shows PageEntries entries; a tool
//     result whose call is on an earlier page is titled without the call's
//     name, and an in-page link (a compaction's "↑") to an entry on
//     another page goes nowhere.
//   - A path longer than PageEntries is still read whole once per request
//     (every committed line checked against the index, SPEC §2): the page
//     holds only its entries, but the time grows with the path.
//   - The listings cap what they draw: the most recent 100 sessions on /,
//     1,000 sessions and 1,000 leaves on a workspace page (the CLI gives
//     all); a tree draws TreeRows rows a page.
//   - The tree, transcript and workspace pages run a few at a time (as
//     many as the CPUs, at least 2); more wait their turn, so parallel
//     requests for a big session queue rather than multiply the memory.
//   - Live updates refetch a whole page; a page scrolled within a changed
//     part keeps its scroll offset, not its entry.
//   - Search hits link to the path to the hit's entry, which ends there;
//     the page then shows how it goes on.
//   - /api as grove serve wires it (cmd/grove apiRunner) runs one command
//     at a time: urfave/cli's help flag and help command are shared by
//     every app. A slow /api search delays the next /api request, never a
//     page.
package serve
