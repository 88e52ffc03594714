package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pkg/browser"
	"github.com/urfave/cli/v2"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/serve"
)

// defaultServeAddr is where grove serve listens unless told: loopback only.
const defaultServeAddr = "127.0.0.1:7420"

var serveHelp = rootsHelp + `
grove serve keeps the index current as grove watch does (one process, one writer) and serves the
archive to a browser: / lists workspaces and recent sessions, /w?path=DIR a workspace's sessions
and leaves, /s/SESSION the session's tree, /s/SESSION/LEAF the transcript of the path to LEAF,
/search the search with grove search's filters, /api/... the --json documents of sessions,
workspaces, leaves, branches, tree, path, messages, context, verify and search (GET /api/ lists
them), /events a notice to open pages when sessions change. It prints its URL, then one line per
pass that changed something, as grove watch does; Ctrl-C or SIGTERM stops it (exit 0).

Safety (docs/serve.md): it listens on loopback (127.0.0.1) unless --addr names another address; a
request whose Host is not the listening address or localhost is refused (403: DNS rebinding), as
is any method but GET and HEAD (405); every page carries a Content-Security-Policy that allows no
inline script or style and nothing from elsewhere, and session text is always escaped.`

type serveOptions struct {
	roots []string
	// readOnly serves a PostgreSQL index from a machine with no session
	// root: no watch, no writer.
	readOnly bool
	addr     string
	open     bool
	quiet    time.Duration
	rescan   time.Duration
}

func serveCommand(g *env) *cli.Command {
	return &cli.Command{
		Name:        "serve",
		Usage:       "the archive in a browser: workspaces, trees, transcripts and search, kept current as files change",
		Description: serveHelp,
		Flags: append([]cli.Flag{
			rootFlag(),
			&cli.StringFlag{Name: "addr", Value: defaultServeAddr, Usage: "listen on `HOST:PORT` (port 0: any free one); a host other than loopback lets other machines read your sessions"},
			&cli.BoolFlag{Name: "open", Usage: "open the URL in the default browser once listening"},
		}, watchFlags()...),
		Action: func(c *cli.Context) error {
			if err := needArgs(c, 0, 0); err != nil {
				return err
			}
			roots, err := rootsOf(c)
			if err != nil {
				return err
			}
			opts := serveOptions{roots: roots, addr: c.String("addr"), open: c.Bool("open"), quiet: c.Duration("debounce"), rescan: c.Duration("rescan")}
			if opts.quiet <= 0 || opts.rescan <= 0 {
				return usagef("serve: --debounce and --rescan take a positive duration, such as 250ms or 5m")
			}
			if _, err := listenAddr(opts.addr); err != nil {
				return err // before the default roots are looked for and named
			}
			if len(opts.roots) == 0 {
				var found []archive.DefaultRoot
				if opts.roots, found, err = defaultRoots("nothing is served"); err != nil {
					if !archive.IsTeamIndex(g.dbPath) {
						return err
					}
					// A team's index (SPEC §10) is served from a machine
					// that has no session of its own: nothing is watched.
					opts.readOnly = true
					fmt.Fprintf(g.stderr, "grove: no session root here: serving the index as it is, watching nothing\n")
				}
				noteRoots(g, found)
			}
			return runServe(c.Context, g, opts)
		},
	}
}

// listenAddr is the address to listen on for --addr: one without a host
// (":7420") is loopback's, since only an address named explicitly opens
// grove to other machines (SPEC §9).
func listenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usagef("serve: --addr wants HOST:PORT, such as 127.0.0.1:7420 or localhost:0, got %q", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

func runServe(ctx context.Context, g *env, opts serveOptions) error {
	addr, err := listenAddr(opts.addr)
	if err != nil {
		return err
	}
	roots, missing := archive.SplitRoots(opts.roots)
	if len(roots) == 0 && !opts.readOnly {
		return archive.CheckRoots(opts.roots, "nothing is served", rootsHint)
	}
	for _, m := range missing {
		fmt.Fprintf(g.stderr, "grove: %s: %s; not watched\n", m.Path, m.Message)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errs.Wrap(errs.CodeIO, err, "cannot listen there: "+err.Error()).In(addr).WithHint("the address must be this machine's and the port free: pick another with --addr HOST:PORT (port 0: any free one)")
	}
	defer ln.Close()
	var wa *archive.Archive // the watch's: the one writer
	if !opts.readOnly {
		if wa, err = g.open(ctx); err != nil {
			return err
		}
		defer wa.Close()
	}
	ra, err := archive.Open(ctx, g.dbPath) // the pages'
	if err != nil {
		return err
	}
	defer ra.Close()
	tcp := ln.Addr().(*net.TCPAddr)
	hub := serve.NewHub()
	o := handlerOptions(g.dbPath, ra, hub, tcp)
	url := "http://" + ln.Addr().String() + "/"
	if tcp.IP.IsUnspecified() {
		url = "http://localhost:" + o.Port + "/"
		fmt.Fprintf(g.stderr, "grove: listening on every interface (%s): anyone who can reach this machine on port %s can read these sessions\n", ln.Addr(), o.Port)
	} else if !tcp.IP.IsLoopback() {
		fmt.Fprintf(g.stderr, "grove: listening on %s, not loopback: anyone who can reach that address can read these sessions\n", ln.Addr())
	}
	srv := &http.Server{Handler: serve.New(o), ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if g.json {
		writeJSON(g.stdout, map[string]string{"url": url})
	} else {
		fmt.Fprintf(g.stdout, "grove serve: %s (Ctrl-C stops)\n", url)
	}
	if opts.open {
		// The opener's own output (xdg-open's) is not grove's: stdout
		// holds the URL line or the one JSON document.
		browser.Stdout, browser.Stderr = io.Discard, io.Discard
		if err := browser.OpenURL(url); err != nil {
			fmt.Fprintf(g.stderr, "grove: --open: %v; open %s yourself\n", err, url)
		}
	}

	out := &watchOutput{g: g, reported: map[string]string{}}
	watched := make(chan error, 1)
	go func() {
		if opts.readOnly {
			return // nothing to watch: serve until Ctrl-C
		}
		watched <- serve.Watch(ctx, wa, ra, hub, archive.WatchOptions{Roots: roots, Quiet: opts.quiet, Rescan: opts.rescan, Busy: g.busy,
			Problem: func(err error) { fmt.Fprintf(g.stderr, "grove: %s\n", cell(err.Error())) },
		}, func(p archive.WatchPass) error {
			if g.json {
				return nil // stdout holds the one document
			}
			return out.pass(p.Trigger, p.Files, p.Summary)
		})
	}()
	var failed error
	select {
	case err := <-watched:
		failed = err // nil: Ctrl-C
		if err == nil {
			<-ctx.Done()
		}
	case err := <-served:
		failed = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	hub.Close()
	stop, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Shutdown(stop)
	if failed != nil && !errors.Is(failed, http.ErrServerClosed) {
		return failed
	}
	if !g.json {
		fmt.Fprintln(g.stderr, "grove: stopped")
	}
	return nil
}

// handlerOptions are grove serve's handler options for a listener on
// addr: the pages read ra, /events subscribes to hub (nil: no /events),
// /api runs this grove in process against the index at dbPath
// (apiRunner), and the Host header may name addr or localhost with its
// port, or on every interface (0.0.0.0, ::) any IP literal with it or
// this machine's name (SPEC §9).
func handlerOptions(dbPath string, ra *archive.Archive, hub *serve.Hub, addr *net.TCPAddr) serve.Options {
	port := fmt.Sprint(addr.Port)
	o := serve.Options{Archive: ra, Port: port, Events: hub, Hosts: []string{strings.ToLower(addr.String())}, API: apiRunner(dbPath), Grove: "grove"}
	if dbPath != defaultDB() && !ra.IsServer() {
		// Absolute: the command is pasted in any directory. (A PostgreSQL
		// URL may hold a password: GROVE_DB names it there.)
		db := dbPath
		if abs, err := filepath.Abs(db); err == nil {
			db = abs
		}
		o.Grove = "grove --db " + archive.ShellQuote(db)
	}
	if addr.IP.IsUnspecified() {
		o.AnyIP = true
		if h, err := os.Hostname(); err == nil {
			o.Hosts = append(o.Hosts, strings.ToLower(h)+":"+port)
		}
	}
	return o
}

// apiRunner is serve.Options.API for the index at dbPath: `grove --db
// dbPath --json ARGS...` run in this process, its document on w, its
// stderr dropped, its exit status returned (SPEC §8).
//
// One run at a time: urfave/cli's package-level cli.HelpFlag and
// cli.VersionFlag (a BoolFlag's Apply writes to it) and its help command
// (Command.setup writes to each subcommand) are shared by every app, so
// two apps running at once race (go test -race: TestServe_Concurrent).
// The pages do not wait on it; they read the archive directly.
func apiRunner(dbPath string) func(ctx context.Context, args []string, w io.Writer) int {
	var one sync.Mutex
	return func(ctx context.Context, args []string, w io.Writer) int {
		one.Lock()
		defer one.Unlock()
		if ctx.Err() != nil {
			return exitFailed // the request went while it waited
		}
		return run(ctx, append([]string{"grove", "--db", dbPath, "--json"}, args...), w, io.Discard)
	}
}
