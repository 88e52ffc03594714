package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/cliutil"
	"github.com/grove-sessions/grove/internal/jsondoc"
	"github.com/grove-sessions/grove/internal/plural"
)

const searchQueryHelp = `QUERY: words are ANDed; "quoted phrases"; -word excludes; word* is a prefix;
   a OR b matches either. Case and Latin accents are ignored; Chinese, Japanese
   and Korean text matches any substring. An entry id or session id (or a
   unique prefix of 4+ characters) finds that entry or session.`

func searchCommand(g *env) *cli.Command {
	// searchFlagNames are search's flags, to catch them typed after the
	// query. Each app has its own: grove serve runs many at once.
	searchFlagNames := map[string]bool{}
	cmd := &cli.Command{
		Name:        "search",
		Usage:       "full-text search over every indexed session, newest hits first",
		ArgsUsage:   "QUERY",
		Description: searchQueryHelp,
		Flags: []cli.Flag{
			workspaceFlag(),
			&cli.StringFlag{Name: "session", Usage: "only this session (id, unique id prefix of 4+ characters, or file path)"},
			dialectFlag(),
			&cli.StringSliceFlag{Name: "role", Usage: "only entries of this role, matched exactly: " + strings.Join(archive.Roles, ", ") + ", or another an indexed entry has; repeat or comma-separate"},
			&cli.StringSliceFlag{Name: "type", Usage: "only entries of this type (message, compaction, branch_summary, label, ...); repeat or comma-separate"},
			&cli.StringFlag{Name: "since", Usage: "only entries at or after this time: 2026-01-05, an RFC 3339 time, or a span back from now (30m, 12h, 7d, 2w)"},
			&cli.StringFlag{Name: "until", Usage: "only entries before this time (a date includes that day)"},
			&cli.StringFlag{Name: "branch", Value: "all", Usage: "all entries, only those on their session's active path (active), or only those on its other real branches (abandoned: artifacts are in neither)"},
			&cli.StringFlag{Name: "sort", Value: "recent", Usage: "recent (newest first) or relevance (BM25 over the newest 10,000 matches)"},
			&cli.IntFlag{Name: "limit", Value: archive.DefaultSearchLimit, Usage: "hits to show"},
			&cli.IntFlag{Name: "offset", Usage: "hits to skip (the next page)"},
			&cli.BoolFlag{Name: "no-dedupe", Usage: "show every fork copy of an entry as its own hit"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usagef("search needs a QUERY; see grove search --help")
			}
			for _, a := range c.Args().Slice() {
				if slices.Contains(g.args, "--") {
					break // after --, everything is the query
				}
				name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
				if strings.HasPrefix(a, "--") && (name == "help" || searchFlagNames[name]) {
					return usagef("%s comes after the query, where it would be searched for: flags go before the query (grove search %s ... QUERY)", a, a)
				}
			}
			if err := checkDialect(c, "search"); err != nil {
				return err
			}
			ws, err := workspaceOf(c)
			if err != nil {
				return err
			}
			o := archive.SearchOptions{Query: strings.Join(c.Args().Slice(), " "), Workspace: ws, Dialect: c.String("dialect"),
				Session: c.String("session"), Roles: cliutil.SplitList(c.StringSlice("role")), Types: cliutil.SplitList(c.StringSlice("type")),
				Sort: c.String("sort"), Limit: c.Int("limit"), Offset: c.Int("offset"), NoDedupe: c.Bool("no-dedupe")}
			switch c.String("branch") {
			case "all":
			case "active":
				o.Active = true
			case "abandoned":
				o.Abandoned = true
			default:
				return usagef("--branch must be active, abandoned or all, not %q", c.String("branch"))
			}
			if o.Sort != "recent" && o.Sort != "relevance" {
				return usagef("--sort must be recent or relevance, not %q", o.Sort)
			}
			if o.Limit < 1 || o.Offset < 0 {
				return usagef("--limit must be 1 or more and --offset 0 or more")
			}
			now := time.Now()
			for _, w := range []struct {
				flag string
				to   **time.Time
			}{{"since", &o.Since}, {"until", &o.Until}} {
				if v := c.String(w.flag); v != "" {
					t, err := archive.ParseWhen(v, now, w.flag == "until")
					if err != nil {
						return usagef("--%s: %v", w.flag, err)
					}
					*w.to = &t
				}
			}
			if o.Since != nil && o.Until != nil && !o.Until.After(*o.Since) {
				return usagef("--until (%s) is not after --since (%s): nothing can match", o.Until.Format(time.RFC3339), o.Since.Format(time.RFC3339))
			}
			return runSearch(c.Context, g, o)
		},
	}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			searchFlagNames[n] = true
		}
	}
	searchFlagNames["json"] = true
	return cmd
}

// describeSearch names the filters of o (see describe): "under /x and of
// role user and since 2026-01-05T00:00:00Z".
func describeSearch(o archive.SearchOptions) string {
	parts := []string{describe(archive.Filter{Session: o.Session, Workspace: o.Workspace, Dialect: o.Dialect})}
	if len(o.Roles) > 0 {
		parts = append(parts, "of role "+cell(strings.Join(o.Roles, " or ")))
	}
	if len(o.Types) > 0 {
		parts = append(parts, "of type "+cell(strings.Join(o.Types, " or ")))
	}
	if o.Since != nil {
		parts = append(parts, "since "+o.Since.UTC().Format(time.RFC3339))
	}
	if o.Until != nil {
		parts = append(parts, "before "+o.Until.UTC().Format(time.RFC3339))
	}
	if o.Active {
		parts = append(parts, "on active paths")
	}
	if o.Abandoned {
		parts = append(parts, "on abandoned branches")
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " and ")
}

func runSearch(ctx context.Context, g *env, o archive.SearchOptions) error {
	a, err := g.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := workspaceFilter(ctx, a, &o.Workspace); err != nil {
		return err
	}
	op := newOpener(g)
	doc, err := jsondoc.RunSearch(ctx, a, o, op)
	if err != nil {
		var re *archive.RoleError
		if errors.As(err, &re) {
			return usagef("--role: %v", re)
		}
		return err
	}
	res := doc.Result
	// Every unknown --role or --type value is named, hits or not: with
	// "user,bogus" the hits are user's, and bogus is still a typo.
	for _, w := range a.UnknownValues(ctx, o) {
		fmt.Fprintf(g.stderr, "grove: %s\n", w)
	}
	if res.TextPending {
		fmt.Fprintf(g.stderr, "grove: the search text of %s is not in the index yet (none of their entries is searchable): a first `grove index` is building it, or was stopped before it finished (then run `grove index` again); sessions, workspaces, leaves, branches, tree and path answer already\n", plural.Count(res.Pending, "session", "sessions"))
	}
	if res.Total == 0 && !res.TextPending {
		if n, err := a.CountSessions(ctx); err == nil && n == 0 {
			fmt.Fprintf(g.stderr, "grove: the index at %s holds no sessions yet: run `grove index` (an index made by an older grove is emptied once, to add search text)\n", g.dbPath)
		} else if err == nil && !g.json && o.Offset == 0 {
			if err := nothingMatched(ctx, g, a, "hits for "+quoteClipped(o.Query), describeSearch(o)); err != nil {
				return err
			}
		}
	}
	if g.json {
		return writeJSON(g.stdout, doc)
	}
	mark, marked := markColours(g)
	for _, h := range res.Hits {
		kind := h.Type
		if h.Role != nil {
			kind = *h.Role
		}
		fmt.Fprintf(g.stdout, "%s %s  %s  %s  %s%s\n", idCell(h.SessionID), idCell(h.EntryID), kind, short(h.TsMs), cell(orDash(h.Workspace)), editedNote(h.Edited))
		switch {
		case h.Damaged:
			fmt.Fprintf(g.stdout, "    (the kept copy of this gone session is damaged; grove verify names it, docs/keeping.md says what to do)\n")
		case h.Stale:
			fmt.Fprintf(g.stdout, "    (the session file changed since it was indexed; run `grove index`)\n")
		default:
			fmt.Fprintf(marked, "    %s\n", mark(cell(h.Snippet)))
		}
		switch h.Branch {
		case archive.BranchAbandoned:
			fmt.Fprintf(g.stdout, "    off the active path: %s\n", reachText(h))
		case archive.BranchArtifact:
			fmt.Fprintf(g.stdout, "    on an artifact (%s), not on a branch a person made\n", h.Artifact)
		case archive.BranchSubAgent:
			fmt.Fprintf(g.stdout, "    in a sub-agent run (a Task call's), not on a branch of the conversation\n")
		}
		if len(h.AlsoIn) > 0 {
			also := h.AlsoIn
			if h.AmbiguousID {
				also = h.AlsoInFiles
			}
			fmt.Fprintf(g.stdout, "    also in: %s\n", cell(strings.Join(also, ", ")))
		}
		oc := op.Open(h)
		fmt.Fprintf(g.stdout, "    %s  ·  %s\n", oc["path"], oc["messages"])
	}
	more := ""
	if !res.Exact {
		more = "+"
	}
	order := "newest first"
	if o.Sort == "relevance" {
		order = "best first"
	}
	shown := fmt.Sprintf("%d", len(res.Hits))
	if o.Offset > 0 && len(res.Hits) > 0 {
		shown = fmt.Sprintf("%d-%d", o.Offset+1, o.Offset+len(res.Hits))
	}
	fmt.Fprintf(g.stdout, "%s of %d%s %s (%s)", shown, res.Total, more, plural.Noun(res.Total, "hit", "hits"), order)
	if next := o.Offset + len(res.Hits); next < res.Total || (!res.Exact && len(res.Hits) > 0) {
		fmt.Fprintf(g.stdout, "; --offset %d for more", next)
	}
	fmt.Fprintln(g.stdout)
	return nil
}

// editedNote is what a hit's line adds when a context edit on its
// session's active path changed what the model sees of it (pi 1.x):
// "  [edited: replaced]" or "  [edited: removed]"; "" otherwise.
func editedNote(edited string) string {
	if edited == "" {
		return ""
	}
	return "  [edited: " + edited + "]"
}

// reachText says which leaves an abandoned hit's entry reaches: "leaf
// X", "leaves X, Y and 3 more", or that its path is broken.
func reachText(h archive.Hit) string {
	if h.LeavesTotal == 0 {
		return "on no whole path (its path is broken)"
	}
	ids := make([]string, len(h.Leaves))
	for i, id := range h.Leaves {
		ids[i] = idCell(id)
	}
	s := plural.Noun(h.LeavesTotal, "leaf", "leaves") + " " + strings.Join(ids, ", ")
	if more := h.LeavesTotal - len(h.Leaves); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// newOpener is the jsondoc.Opener of g's index: grove with --db when the
// index is not the one a plain `grove` would open.
func newOpener(g *env) jsondoc.Opener {
	grove := "grove"
	if g.dbPath != defaultDB() && os.Getenv("GROVE_DB") != g.dbPath {
		grove += " --db " + shellQuote(archive.PastableIndex(g.dbPath))
	}
	return jsondoc.Opener{Grove: grove}
}

// shellQuote quotes s for a POSIX shell (archive.ShellQuote).
func shellQuote(s string) string { return archive.ShellQuote(s) }

func markPlain(s string) string { return s }

// markColour shows the [[...]] markers of a snippet as bold red.
func markColour(s string) string {
	s = strings.ReplaceAll(s, archive.MarkOpen, "\x1b[1;31m")
	return strings.ReplaceAll(s, archive.MarkClose, "\x1b[0m")
}

// markColours returns how a snippet's [[...]] markers are shown and where
// the marked snippet is written: in bold red, unescaped, when stdout is a
// terminal and NO_COLOR (no-color.org) is unset (see output.colour);
// otherwise as they are, on stdout.
func markColours(g *env) (func(string) string, io.Writer) {
	if o, ok := g.stdout.(*output); ok && o.colour() {
		return markColour, o.raw()
	}
	return markPlain, g.stdout
}

// messageColumns is how wide a query may be when a message repeats it: a
// 100,000-character query is not printed whole.
const messageColumns = 80

// quoteClipped is s quoted as Go quotes it, cut to messageColumns terminal
// columns with "…" when longer (see clipWidth).
func quoteClipped(s string) string {
	q := strconv.Quote(s)
	if displayWidth(q) <= messageColumns {
		return q
	}
	return clipWidth(q[:len(q)-1], messageColumns-1) + `"`
}
