package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

// workspaceUsage is the workspace rule (SPEC §3.3), said the same way in
// every command's --help.
const workspaceUsage = "only sessions whose workspace is `DIR` or below it (/a/b takes /a/b and /a/b/c, not /a/bc); " +
	workspaceArgs

// workspaceArgs says how a --workspace argument is read (SPEC §3.3).
const workspaceArgs = ". and relative paths are from the current directory; a Windows path (e:\\work\\app: \\ and / alike, " +
	"the drive letter in either case) or a workspace as the index lists it is taken as written"

func workspaceFlag() cli.Flag {
	return &cli.StringFlag{Name: "workspace", Usage: workspaceUsage}
}

// filterFlags are --session, --workspace and --dialect, new for each app
// (grove serve runs many at once).
func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "session", Usage: "only this session (id, unique id prefix of 4+ characters, or file path)"},
		workspaceFlag(),
		dialectFlag(),
		allFlag(),
	}
}

// allFlag is --all of the listings of leaves and branch points (SPEC
// §4.2): every one, each with its kind, not only the real ones.
func allFlag() cli.Flag {
	return &cli.BoolFlag{Name: "all", Usage: "also list what the agent recorded beside the branches a person made (parallel tool calls, progress lines, replays, commands), each with its kind"}
}

// filterOf is the --session, --workspace and --dialect filter of c, its
// Workspace the argument as given (see workspaceFilter); the error is a
// usage error for a --dialect that names no dialect or an empty
// --workspace.
func filterOf(c *cli.Context) (archive.Filter, error) {
	if err := checkDialect(c, c.Command.Name); err != nil {
		return archive.Filter{}, err
	}
	ws, err := workspaceOf(c)
	return archive.Filter{Session: c.String("session"), Workspace: ws, Dialect: c.String("dialect"), All: c.Bool("all")}, err
}

// workspaceOf is c's --workspace as given, "" when the flag is not given;
// workspaceFilter makes the filter of it once the index is open. An
// explicitly empty --workspace is a usage error (exit 2), as an empty
// --root is: it would silently mean no filter.
func workspaceOf(c *cli.Context) (string, error) {
	if c.IsSet("workspace") && strings.TrimSpace(c.String("workspace")) == "" {
		return "", usagef("--workspace needs a directory, not an empty string; leave --workspace out for every workspace")
	}
	return c.String("workspace"), nil
}

// workspaceFilter sets *ws, a --workspace argument, to the filter the
// workspace rule takes (archive.Archive.WorkspaceFilter, SPEC §3.3): an
// absolute directory resolved against the current directory, or a
// workspace recorded on another system as it is written. The error is
// WorkspaceFilter's (a relative --workspace in a deleted directory).
func workspaceFilter(ctx context.Context, a *archive.Archive, ws *string) error {
	dir, err := a.WorkspaceFilter(ctx, *ws)
	if err == nil {
		*ws = dir
	}
	return err
}

// describe names the filters of f as they narrow a listing: "under /x",
// "in session S", "of dialect pi", joined with "and"; "" for none.
func describe(f archive.Filter) string {
	var parts []string
	if f.Session != "" {
		parts = append(parts, "in session "+cell(f.Session))
	}
	if f.Workspace != "" {
		parts = append(parts, "under "+cell(f.Workspace))
	}
	if f.Dialect != "" {
		parts = append(parts, "of dialect "+cell(f.Dialect))
	}
	return strings.Join(parts, " and ")
}

// nothingMatched says on stderr why a listing of what ("sessions",
// "leaves", "hits for x") is empty: the filters (see describe) that left
// every session out, and what the index holds; or that the index holds no
// session at all.
func nothingMatched(ctx context.Context, g *env, a *archive.Archive, what, filters string) error {
	n, w, err := a.Holdings(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(g.stderr, "no %s: the index at %s holds no sessions; run `grove index`\n", what, g.dbPath)
		return nil
	}
	if filters != "" {
		what += " " + filters
	}
	fmt.Fprintf(g.stderr, "no %s; the index holds %s in %s\n", what, plural.Count(n, "session", "sessions"), plural.Count(w, "workspace", "workspaces"))
	return nil
}

// noneInPicked says on stderr that the sessions f picks (picked of them)
// hold no what ("leaves", "branch points"); when f picks none,
// nothingMatched says why.
func noneInPicked(ctx context.Context, g *env, a *archive.Archive, what string, f archive.Filter) error {
	picked, err := a.Pick(ctx, f)
	if err != nil {
		return err
	}
	if len(picked) == 0 {
		return nothingMatched(ctx, g, a, what, describe(f))
	}
	if f.Session != "" { // one session, found (and within the other filters)
		fmt.Fprintf(g.stderr, "no %s in session %s\n", what, cell(picked[0].SessionID))
		return nil
	}
	in := "the " + plural.Count(len(picked), "session", "sessions")
	if len(picked) == 1 {
		in = "the session"
	}
	if d := describe(f); d != "" {
		in += " " + d
	} else {
		in += " of the index"
	}
	fmt.Fprintf(g.stderr, "no %s in %s\n", what, in)
	return nil
}

// dialectNames are the values --dialect takes: archive.Dialects, the names
// grove prints (SPEC §3).
var dialectNames = func() []string {
	var out []string
	for _, d := range archive.Dialects {
		out = append(out, string(d))
	}
	return out
}()

// dialectFlag is --dialect, for the commands that filter sessions by it.
func dialectFlag() cli.Flag {
	return &cli.StringFlag{Name: "dialect", Usage: "only sessions of this `DIALECT`: " + strings.Join(dialectNames, ", ")}
}

// checkDialect refuses a --dialect that names no dialect (usage error,
// exit 2), naming the five; cmd is the command's name.
func checkDialect(c *cli.Context, cmd string) error {
	if d := c.String("dialect"); c.IsSet("dialect") && !slices.Contains(dialectNames, d) {
		return usagef("%s --dialect: unknown dialect %q; the dialects are %s", cmd, d, strings.Join(dialectNames, ", "))
	}
	return nil
}
