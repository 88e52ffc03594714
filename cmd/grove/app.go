package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/cliutil"
	"github.com/grove-sessions/grove/internal/jsondoc"

	"github.com/grove-sessions/grove/archive"
)

// Exit statuses (SPEC §8), decided only in exitStatus.
const (
	exitOK     = 0 // success
	exitFailed = 1 // the operation failed: a path error, a verify mismatch, a strict-mode bad line, ...
	exitUsage  = 2 // the command line was wrong
)

// usageError is a wrong command line: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// interruptedError is Ctrl-C with a message of the command's own (code
// interrupted).
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }
func (e interruptedError) Unwrap() error { return context.Canceled }

// silentFailure is a failure whose report is already on stdout (verify's
// mismatches, recover --strict's report): exit 1 without an error line.
type silentFailure struct{ what string }

func (e silentFailure) Error() string { return e.what }

// env is what every command shares: the global flags and the output streams.
type env struct {
	args   []string // the command line, program name first
	dbPath string
	json   bool
	stdout io.Writer // the command's output: see output
	stderr io.Writer

	rawStdout   io.Writer // stdout itself, for the error document
	writes      bool      // the command writes the index (index, rebuild, watch)
	source      string    // --source of a command that writes: "" means the host name
	sourceGiven bool      // --source (or GROVE_SOURCE) was given
	noKeep      bool      // --no-keep (or GROVE_KEEP=0): no kept store (keepFlag)
}

// open opens the index for a command that writes it, creating it if
// needed. A damaged index is set aside, said on stderr, and replaced by a
// new one; a file that is not a grove index, or a newer grove's, is refused.
//
// At the default location the directory is grove's own
// ($XDG_DATA_HOME/grove): it is made 0700 if it is more open (SPEC §6).
// A --db directory may be the user's and is left as it is.
func (g *env) open(ctx context.Context) (*archive.Archive, error) {
	if def := defaultDB(); g.dbPath == def {
		if err := archive.MakePrivateDir(filepath.Dir(def), g.warn); err != nil {
			return nil, err
		}
	}
	a, err := archive.OpenForWrite(ctx, g.dbPath, g.warn)
	if err != nil {
		return nil, err
	}
	if err := a.SetSource(ctx, g.source); err != nil {
		a.Close()
		return nil, err
	}
	a.SetKeep(keepOn(g.noKeep))
	return a, nil
}

// sourceFlag is --source (SPEC §10) of the commands that write the index.
func sourceFlag() cli.Flag {
	return &cli.StringFlag{Name: "source", EnvVars: []string{"GROVE_SOURCE"},
		Usage: "the name this machine's sessions are kept under in a shared index (default: the host name)"}
}

// readSourceFlag is --source of the commands that read: which source's
// session a shared id or path means, and whose sessions are listed. It
// takes no GROVE_SOURCE: a machine that writes as one source still reads
// the whole team's index.
func readSourceFlag() cli.Flag {
	return &cli.StringFlag{Name: "source",
		Usage: "in a team's index (PostgreSQL), only this source's sessions: the one an id or path means, the ones listed or searched"}
}

// warn writes one line to stderr, with --json too (stdout holds only the
// JSON document).
func (g *env) warn(msg string) { fmt.Fprintf(g.stderr, "grove: %s\n", msg) }

// busy tells that another grove holds the index's lock and this one waits.
func (g *env) busy(holder string) {
	g.warn("another grove is writing this index (" + holder + "); waiting for it to finish (Ctrl-C stops)")
}

// openExisting opens the index for a command that only reads it: a missing
// index is an error naming the path, not a new empty file, and a damaged
// one is reported (damaged_index), never moved.
func (g *env) openExisting(ctx context.Context) (*archive.Archive, error) {
	return archive.OpenExisting(ctx, g.dbPath, g.source)
}

// explicitEmptyDB reports whether the command line itself gave --db an
// empty value (an empty GROVE_DB means the default instead).
func explicitEmptyDB(args []string) bool {
	for i, a := range args {
		if a == "--db=" || a == "-db=" || ((a == "--db" || a == "-db") && i+1 < len(args) && args[i+1] == "") {
			return true
		}
	}
	return false
}

// defaultDB is SPEC §8's default index location. A relative XDG_DATA_HOME
// is ignored, as the XDG base directory spec says.
func defaultDB() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "grove", "index.db")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".grove", "index.db")
	}
	return filepath.Join(home, ".local", "share", "grove", "index.db")
}

// jsonFlag is --json. Each app gets its own flags (urfave/cli writes to a
// flag as it applies it): grove serve runs many apps at once.
func jsonFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "machine output: exactly one JSON document on stdout"}
}

const exitHelp = `EXIT STATUS:
   0  success
   1  the operation failed (a path error, a verify mismatch or stale file, a strict-mode bad line, ...)
   2  the command line was wrong`

func newApp(g *env) *cli.App {
	app := &cli.App{
		Name:  "grove",
		Usage: "keep and search coding-agent sessions (pi, Claude Code, Codex and plain JSONL files) through a rebuildable index (SQLite, or PostgreSQL for a team)",
		UsageText: "grove [global flags] COMMAND [flags] [args]   (flags go before positional arguments)\n\n" +
			"   grove index                       index pi's, Claude Code's and Codex's sessions (or $GROVE_ROOT)\n" +
			"   grove sessions                    list indexed sessions\n" +
			"   grove leaves --workspace \"$PWD\"   every leaf of this workspace, newest first\n" +
			"   grove tree SESSION                the session's tree\n" +
			"   grove path SESSION [LEAF]         the path from the root to LEAF\n" +
			"   grove context SESSION [LEAF]      what the model receives at LEAF\n" +
			"   grove export SESSION [LEAF]       the path as a Markdown transcript",
		Description: exitHelp,
		Version:     version(),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "index file, or a PostgreSQL URL (postgres://…) for an index a team shares", EnvVars: []string{"GROVE_DB"}, Value: defaultDB()},
			jsonFlag(),
		},
		Writer:         g.stdout,
		ErrWriter:      g.stderr,
		ExitErrHandler: func(*cli.Context, error) {}, // exit statuses are decided in run, after cleanup
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(g.stderr, "grove: no command %q; see grove --help\n", name)
		},
		Before: func(c *cli.Context) error {
			g.dbPath = c.String("db")
			if g.dbPath == "" {
				if explicitEmptyDB(g.args) {
					return usagef("--db needs a file path")
				}
				g.dbPath = defaultDB() // GROVE_DB set but empty
			}
			if why := archive.NotAnIndexName(g.dbPath); why != "" { // not echoed: it may hold a password
				return usagef("--db (or GROVE_DB) is %s", why)
			}
			g.json = c.Bool("json")
			return nil
		},
		Commands: []*cli.Command{
			indexCommand(g), rebuildCommand(g), sessionsCommand(g), workspacesCommand(g), leavesCommand(g),
			branchesCommand(g), treeCommand(g), pathCommand(g), messagesCommand(g), contextCommand(g), exportCommand(g),
			verifyCommand(g), recoverCommand(g), appendCommand(g), repairCommand(g), searchCommand(g), watchCommand(g), serveCommand(g),
			mcpCommand(g), resumeCommand(g), pickCommand(g), forgetCommand(g),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
		c.Flags = append(c.Flags, jsonFlag())
		switch c.Name {
		case "forget":
			c.Flags = append(c.Flags, sourceFlag())
		case "index", "rebuild", "watch", "serve":
			c.Flags = append(c.Flags, sourceFlag(), keepFlag())
		case "sessions", "leaves", "branches", "tree", "path", "messages", "context", "export", "verify", "search", "mcp", "resume", "pick":
			c.Flags = append(c.Flags, readSourceFlag())
		}
		before := c.Before
		c.Before = func(cc *cli.Context) error {
			g.json = g.json || cc.Bool("json")
			switch cc.Command.Name {
			case "index", "rebuild", "watch", "serve", "forget":
				g.writes = true
			}
			if hasFlag(cc.Command, "no-keep") {
				g.noKeep = cc.Bool("no-keep")
				if err := checkKeepEnv(); err != nil {
					return err
				}
			}
			if hasFlag(cc.Command, "source") {
				g.source = cc.String("source")
				g.sourceGiven = g.source != ""
				if strings.ContainsFunc(g.source, unicode.IsControl) {
					return usagef("--source %q holds a control character", g.source)
				}
			}
			if before != nil {
				return before(cc)
			}
			return nil
		}
	}
	return app
}

// run runs grove with args and returns the exit status. It never calls
// os.Exit, so deferred cleanup always runs.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	g := &env{args: args, stderr: stderr, rawStdout: stdout}
	g.stdout = newOutput(ctx, g, stdout)
	app := newApp(g)
	notFound := ""
	app.CommandNotFound = func(c *cli.Context, name string) {
		notFound = name
		if !g.json {
			fmt.Fprintf(stderr, "grove: no command %q; see grove --help\n", name)
		}
	}
	err := app.RunContext(ctx, args)
	if notFound != "" {
		err = usagef("no command %q; see grove --help", notFound)
		if g.json {
			report(g, err)
		}
		return exitUsage
	}
	if err == nil {
		return exitOK
	}
	// A full disk, wherever it was met (SQLite's SQLITE_FULL is the
	// index's), and damage met by a query or an ingest after the index
	// opened.
	err = archive.Explain(g.dbPath, err, "grove "+archive.CommandName(args[1:]))
	report(g, err)
	return exitStatus(err)
}

// exitStatus maps an error to SPEC §8's exit status.
func exitStatus(err error) int {
	var u usageError
	if errors.As(err, &u) || cliutil.IsFlagError(err) {
		return exitUsage
	}
	var child childExit
	if errors.As(err, &child) {
		return child.code
	}
	return exitFailed
}

// report writes err: one line on stderr, or with --json the error object of
// SPEC §8 on stdout.
func report(g *env, err error) {
	var quiet silentFailure
	var child childExit
	if errors.As(err, &quiet) || errors.As(err, &child) {
		return // said already (on stdout, or by the agent)
	}
	var ie interruptedError
	if errors.Is(err, context.Canceled) && !errors.As(err, &ie) && !g.writes {
		err = interruptedError{msg: "interrupted"} // a read: nothing to say about the index
	}
	if !g.json {
		if errors.Is(err, context.Canceled) {
			err = errors.New(errorObject(err).Message)
		}
		msg := err.Error()
		var je *errs.Error
		if errors.As(err, &je) && je.Hint != "" {
			msg += " (" + je.Hint + ")"
		}
		// One line, whatever a path or id holds, and no control characters.
		msg = cell(msg)
		fmt.Fprintf(g.stderr, "grove: %s\n", msg)
		return
	}
	writeJSON(g.rawStdout, struct {
		Error jsondoc.Error `json:"error"`
	}{errorObject(err)})
}

// errorObject builds {"code","message",...details} for err: an
// *errs.Error's code and details (jsondoc.ErrorOf), usage for a wrong
// command line, interrupted for Ctrl-C.
func errorObject(err error) jsondoc.Error {
	obj := jsondoc.ErrorOf(err)
	var je *errs.Error
	var u usageError
	switch {
	case errors.As(err, &je):
	case errors.As(err, &u) || cliutil.IsFlagError(err):
		obj.Code = "usage"
	case errors.Is(err, context.Canceled):
		obj.Code = "interrupted"
		obj.Message = "interrupted; every batch committed before stays indexed"
		var ie interruptedError
		if errors.As(err, &ie) {
			obj.Message = ie.msg
		}
	}
	return obj
}

// writeJSON writes v as one compact JSON document and a newline. HTML
// characters are not escaped and nothing is indented, so raw message bodies
// come out byte for byte as they were stored.
func writeJSON(w io.Writer, v any) error { return jsondoc.Write(w, v) }

// flagsBeforeArgs refuses a flag given after a positional argument, which
// urfave/cli would otherwise take as an argument (SPEC §8: flags go first).
func flagsBeforeArgs(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			return usagef("%s: flag %s after an argument; flags go before positional arguments", c.Command.Name, a)
		}
	}
	return nil
}

// needArgs checks the number of positional arguments.
func needArgs(c *cli.Context, min, max int) error {
	n := c.NArg()
	if err := flagsBeforeArgs(c); err != nil {
		return err
	}
	switch {
	case max == 0 && n > 0:
		return usagef("%s takes no arguments, got %q (flags go before arguments)", c.Command.Name, c.Args().First())
	case n < min || n > max:
		return usagef("%s: want %s, got %d arguments (flags go before arguments)", c.Command.Name, c.Command.ArgsUsage, n)
	}
	return nil
}

// version is grove's version for --version, from the build information
// the go tool records: the main module's version (v1.2.3 when installed
// with go install module@version, "(devel)" when built from a checkout),
// then the VCS revision (12 hex digits, "+dirty" when the work tree had
// changes) when it was recorded.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return versionOf(bi)
}

// versionOf is version's answer for the build information bi.
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) {
		v += " " + rev + dirty
	}
	return v
}

// hasFlag reports whether c takes the flag name.
func hasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
