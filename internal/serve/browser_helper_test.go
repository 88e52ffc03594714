package serve_test

// The browser tests' setup: one headless Chromium for the whole package
// (a tab per test), a grove serve over copies of the testdata sessions on
// a real listener, and a tab that fails its test on any console error,
// uncaught exception or CSP violation and leaves a screenshot when its
// test fails.

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/serve"
	"github.com/grove-sessions/grove/internal/testutil"
)

// stepTimeout bounds each test's browser actions together: a page that
// never loads or a live update that never comes fails the test after it,
// not go test's whole -timeout later. The longest test takes about 9 s
// on a 2-core machine with a load of 8.
const stepTimeout = 2 * time.Minute

// loadTimeout bounds the wait for the page a click or a key leads to: one
// that leads nowhere fails in this time (a page loads in well under a
// second here).
const loadTimeout = 20 * time.Second

// browserNames are the executables looked for on PATH, in this order,
// when GROVE_CHROMIUM is not set: Debian's packages first, as .ci/run
// installs them.
var browserNames = []string{"chromium-headless-shell", "chromium", "google-chrome", "google-chrome-stable"}

// chromium is the package's one browser, started by the first test that
// needs it and stopped by TestMain.
var chromium struct {
	once   sync.Once
	ctx    context.Context // the browser's; a tab is a chromedp.NewContext of it
	stop   func()
	skip   string // why there is no browser: the tests skip with it
	err    error  // the browser would not start: the tests fail with it
	shots  string // the folder failed tests' screenshots go to, made once
	shotMu sync.Mutex
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.stop != nil {
		chromium.stop()
	}
	os.Exit(code)
}

// findChromium is the browser to drive: $GROVE_CHROMIUM when set, else
// the first of browserNames on PATH. skip says how to get one when there
// is none; err is a GROVE_CHROMIUM that names nothing runnable.
func findChromium() (path, skip string, err error) {
	if p := os.Getenv("GROVE_CHROMIUM"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", "", fmt.Errorf("GROVE_CHROMIUM=%s: %w", p, err)
		}
		return found, "", nil
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, "", nil
		}
	}
	return "", "no Chromium on PATH (looked for " + strings.Join(browserNames, ", ") + "): the browser tests need one; " +
		"`apt-get install chromium-headless-shell` (what .ci/run does), or set GROVE_CHROMIUM to a Chrome or Chromium executable", nil
}

// mustBrowser is the shared browser's context, started on first use;
// without a browser the test is skipped with findChromium's message.
func mustBrowser(tb testing.TB) context.Context {
	tb.Helper()
	chromium.once.Do(func() {
		path, skip, err := findChromium()
		if skip != "" || err != nil {
			chromium.skip, chromium.err = skip, err
			return
		}
		// chromedp's defaults (headless among them), a window wide
		// enough for the transcript's column.
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 900))
		if os.Geteuid() == 0 {
			opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
		}
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, bcancel := chromedp.NewContext(actx)
		// The first Do starts the browser and ties its life to bctx, so
		// it gets no deadline of its own: a browser that hangs is
		// given up after a minute here.
		started := make(chan error, 1)
		go func() { started <- chromedp.Do(bctx) }()
		select {
		case err = <-started:
		case <-time.After(time.Minute):
			err = errors.New("it did not answer in a minute")
		}
		if err != nil {
			bcancel()
			acancel()
			chromium.err = fmt.Errorf("start %s: %w", path, err)
			return
		}
		chromium.ctx, chromium.stop = bctx, func() { bcancel(); acancel() }
	})
	if chromium.err != nil {
		tb.Fatalf("browser: %v", chromium.err)
	}
	if chromium.skip != "" {
		tb.Skip("skipping: " + chromium.skip)
	}
	return chromium.ctx
}

// site is a running grove serve over a temporary root of session files.
type site struct {
	URL   string            // "http://127.0.0.1:PORT", no slash
	Root  string            // the watched folder
	R     *archive.Archive  // the pages' archive, for what the pages should show
	Files map[string]string // root name -> path
	w     *archive.Archive  // the writer
	hub   *serve.Hub
}

// siteFiles are the testdata sessions a site serves, by the name they get
// in its root: every pi fixture, the plain chapter log, one Claude Code
// session and one Codex rollout (damaged: its diagnostics are drawn).
var siteFiles = map[string]string{
	"v1-linear.jsonl":                            "pi/v1-linear.jsonl",
	"v2-branches.jsonl":                          "pi/v2-branches.jsonl",
	"v3-tree.jsonl":                              "pi/v3-tree.jsonl",
	"chapter-tree.jsonl":                         "plain/chapter-tree.jsonl",
	"7f3c2a10-0000-4000-8000-000000000001.jsonl": "claude/7f3c2a10-0000-4000-8000-000000000001.jsonl",
	"rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl": "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
}

// siteOptions say what a site serves and how it keeps its index.
type siteOptions struct {
	Files map[string]string // root name -> testdata path
	Made  map[string][]byte // root name -> content
	// Manual: no watch; the root is indexed once, then only by
	// site.index, so a test decides when the index catches up.
	Manual bool
	// NoKeep: the writer keeps no copy (--no-keep), so a session whose
	// file is removed leaves the index (docs/keeping.md).
	NoKeep bool
}

// mustSite serves siteFiles as grove serve does: a writer archive
// watching the root (serve.Watch, 50 ms quiet) whose passes are announced
// on a Hub, a reader archive for the pages, and serve.New on a real
// loopback listener, its Host rule set to that listener's address. It
// returns once the watch's first pass has indexed the root; everything
// stops when the test ends. It is for the browser tests: without a
// browser it skips the test at once.
func mustSite(tb testing.TB) *site {
	tb.Helper()
	return mustSiteOf(tb, siteOptions{Files: siteFiles})
}

// mustSiteOf is mustSite over o's files.
func mustSiteOf(tb testing.TB, o siteOptions) *site {
	tb.Helper()
	mustBrowser(tb) // without a browser, skip before making the site
	root := filepath.Join(tb.TempDir(), "sessions")
	s := &site{Root: root, Files: map[string]string{}, hub: serve.NewHub()}
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, src := range o.Files {
		s.Files[name] = testutil.MustCopy(tb, testutil.Testdata(tb, src), root, name)
	}
	for name, b := range o.Made {
		s.Files[name] = testutil.MustWriteFile(tb, root, name, b)
	}
	db := testutil.MustTempDB(tb)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := archive.OpenForWrite(ctx, db, func(msg string) { tb.Logf("index: %s", msg) })
	if err != nil {
		tb.Fatalf("OpenForWrite(%s): %v", db, err)
	}
	r, err := archive.Open(ctx, db)
	if err != nil {
		tb.Fatalf("Open(%s): %v", db, err)
	}
	s.R, s.w = r, w
	if o.NoKeep {
		w.SetKeep(false)
	}
	watched := make(chan error, 1)
	if o.Manual {
		s.index(tb)
		watched <- nil
	} else {
		started := make(chan struct{})
		go func() {
			first := true
			watched <- serve.Watch(ctx, w, r, s.hub, archive.WatchOptions{Roots: []string{root}, Quiet: 50 * time.Millisecond, Rescan: time.Hour,
				Problem: func(err error) { tb.Errorf("watch: %v", err) }},
				func(archive.WatchPass) error {
					if first {
						first = false
						close(started)
					}
					return nil
				})
		}()
		select {
		case <-started:
		case err := <-watched:
			tb.Fatalf("serve.Watch ended before its first pass: %v", err)
		case <-time.After(stepTimeout):
			tb.Fatalf("serve.Watch made no first pass in %v", stepTimeout)
		}
	}
	srv := httptest.NewUnstartedServer(nil)
	host := srv.Listener.Addr().String()
	_, port, _ := strings.Cut(host, ":")
	srv.Config.Handler = serve.New(serve.Options{Archive: r, Events: s.hub, Port: port, Hosts: []string{host}})
	srv.Start()
	s.URL = srv.URL
	tb.Cleanup(func() {
		s.hub.Close() // ends the /events streams, which Close would wait for
		srv.Close()
		cancel()
		if err := <-watched; err != nil {
			tb.Errorf("serve.Watch: %v", err)
		}
		w.Close()
		r.Close()
	})
	return s
}

// index is a manual site's watch pass: the root indexed, and the
// sessions of its files announced on the Hub when anything changed.
func (s *site) index(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	sum, err := s.w.Index(ctx, archive.IndexOptions{Roots: []string{s.Root}})
	if err != nil {
		tb.Fatalf("Index(%s): %v", s.Root, err)
	}
	if sum.Indexed == 0 && sum.Removed == 0 {
		return
	}
	var ids []string
	for _, p := range s.Files {
		if se, err := s.R.Resolve(ctx, p); err == nil {
			ids = append(ids, se.SessionID)
		}
	}
	s.hub.Notify(ids)
}

// tab is one browser tab of a test. Every console error, uncaught
// exception and browser log error (CSP violations among them) it sees
// fails the test, and a failed test leaves a screenshot of it.
type tab struct {
	tb   testing.TB
	ctx  context.Context // the test's, bounded by stepTimeout
	base context.Context // the tab's, without the deadline (screenshots)
	mu   sync.Mutex
	url  string   // the page the tab last navigated to, for the messages
	bad  []string // what went wrong, each with its page's URL
	ok   []string // browser log texts that are expected (allow)
}

// allow lets browser log errors that hold text pass, such as Chromium's
// "the server responded with a status of 409" for an error page a test
// asks for.
func (t *tab) allow(text string) {
	t.mu.Lock()
	t.ok = append(t.ok, text)
	t.mu.Unlock()
}

// mustTab opens a tab in the shared browser (skipping the test when there
// is none).
func mustTab(tb testing.TB) *tab {
	tb.Helper()
	bctx := mustBrowser(tb)
	t := &tab{tb: tb}
	base, cancel := chromedp.NewContext(bctx, chromedp.WithListener(t.listen))
	if err := chromedp.Do(base); err != nil { // opens the tab, with no deadline
		cancel()
		tb.Fatalf("open a tab: %v", err)
	}
	ctx, cancelStep := context.WithTimeout(base, stepTimeout)
	t.ctx, t.base = ctx, base
	// Cleanups run last first: the problems are reported, then the
	// screenshot taken if the test failed, then the tab closed.
	tb.Cleanup(func() { cancelStep(); cancel() })
	tb.Cleanup(t.screenshot)
	tb.Cleanup(t.check)
	return t
}

// listen runs in the tab's event loop: it only records.
func (t *tab) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" {
			t.mu.Lock()
			t.url = ev.Frame.URL + ev.Frame.URLFragment
			t.mu.Unlock()
		}
		return
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = "uncaught exception: " + d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		msg += fmt.Sprintf(" (%s:%d:%d)", d.URL, d.LineNumber+1, d.ColumnNumber+1)
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		var args []string
		for _, a := range ev.Args {
			if a.Description != "" {
				args = append(args, a.Description)
			} else {
				args = append(args, string(a.Value))
			}
		}
		msg = "console.error: " + strings.Join(args, " ")
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		t.mu.Lock()
		ok := slices.ContainsFunc(t.ok, func(s string) bool { return strings.Contains(ev.Entry.Text, s) })
		t.mu.Unlock()
		if ok {
			return
		}
		msg = fmt.Sprintf("browser log (%s): %s", ev.Entry.Source, ev.Entry.Text)
		if ev.Entry.URL != "" {
			msg += " at " + ev.Entry.URL
		}
	default:
		return
	}
	t.mu.Lock()
	t.bad = append(t.bad, "on "+t.url+": "+msg)
	t.mu.Unlock()
}

// check fails the test with every problem seen so far, once.
func (t *tab) check() {
	t.tb.Helper()
	t.mu.Lock()
	bad := t.bad
	t.bad = nil
	t.mu.Unlock()
	for _, m := range bad {
		t.tb.Errorf("browser: %s", m)
	}
}

// where is the tab's URL, or why it cannot be read.
func (t *tab) where() string {
	ctx, cancel := context.WithTimeout(t.base, 5*time.Second)
	defer cancel()
	u, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return "(location: " + err.Error() + ")"
	}
	return u
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// screenshot writes the tab's whole page to the package's screenshot
// folder (made once, kept) when the test failed, and logs its path.
func (t *tab) screenshot() {
	if !t.tb.Failed() {
		return
	}
	ctx, cancel := context.WithTimeout(t.base, 10*time.Second)
	defer cancel()
	// Entries off screen are not drawn (content-visibility: auto), so
	// the whole page is made visible first, through the CSSOM (which the
	// CSP does not govern).
	_ = chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`for (const e of document.querySelectorAll("*")) e.style.contentVisibility = "visible"`))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.tb.Logf("no screenshot: %v", err)
		return
	}
	chromium.shotMu.Lock()
	defer chromium.shotMu.Unlock()
	if chromium.shots == "" {
		dir, err := os.MkdirTemp("", "grove-browser-")
		if err != nil {
			t.tb.Logf("no screenshot: %v", err)
			return
		}
		chromium.shots = dir
	}
	p := filepath.Join(chromium.shots, unsafeName.ReplaceAllString(t.tb.Name(), "_")+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.tb.Logf("no screenshot: %v", err)
		return
	}
	t.tb.Logf("screenshot of %s: %s", t.where(), p)
}

// do runs steps in the tab; an error fails the test, naming what.
func (t *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	t.tb.Helper()
	if err := chromedp.Do(t.ctx, steps...); err != nil {
		t.tb.Fatalf("%s: %v", what, err)
	}
}

// open loads url (a path on s) and waits for its load event.
func (t *tab) open(s *site, path string) {
	t.tb.Helper()
	t.do("open "+path, chromedp.Navigate(s.URL+path))
}

// follow runs trigger (a click, a key) and waits for the page it leads
// to to load.
func (t *tab) follow(what string, trigger chromedp.Action[chromedp.Void]) {
	t.tb.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, loadTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, trigger)); err != nil {
		if ctx.Err() != nil && t.ctx.Err() == nil {
			err = fmt.Errorf("no page loaded within %v (still on %s)", loadTimeout, t.where())
		}
		t.tb.Fatalf("%s: %v", what, err)
	}
}

// click clicks the first element css matches and waits for the page the
// click leads to.
func (t *tab) click(css string) {
	t.tb.Helper()
	if n := eval[int](t, `document.querySelectorAll(`+strconv.Quote(css)+`).length`); n == 0 {
		t.tb.Fatalf("click %s: no such element on %s", css, t.where())
	}
	// A row of the tree scrolled into view is drawn (content-visibility)
	// at the next frame; until then a click at it lands on the row, not
	// on its link.
	t.do("scroll to "+css, chromedp.ScrollIntoView(chromedp.CSS(css)),
		chromedp.Evaluate[chromedp.Void](`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))`, chromedp.EvalAwaitPromise))
	t.follow("click "+css, chromedp.Click(chromedp.CSS(css)))
}

// press is a key pressed as a keyboard does it: one keyDown that carries
// the key's text, then keyUp. (chromedp.KeyEvent sends the text as a
// separate char event, which a keydown handler's preventDefault cannot
// stop, unlike a real key's.)
func press(key rune) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var down, up *input.DispatchKeyEventParams
		for _, p := range kb.Encode(key) {
			switch p.Type {
			case input.DispatchKeyEventTypeKeyDown:
				down = p
			case input.DispatchKeyEventTypeChar:
				if down != nil {
					down.Text, down.UnmodifiedText = p.Text, p.UnmodifiedText
				}
			case input.DispatchKeyEventTypeKeyUp:
				up = p
			}
		}
		for _, p := range []*input.DispatchKeyEventParams{down, up} {
			if p == nil {
				return fmt.Errorf("press %q: kb.Encode gave no keyDown and keyUp", key)
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *p); err != nil {
				return fmt.Errorf("press %q: %w", key, err)
			}
		}
		return nil
	})
}

// eval is the value of a JavaScript expression in the tab's page.
func eval[T any](t *tab, expr string) T {
	t.tb.Helper()
	v, err := chromedp.Run(t.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// location is the page's path, query and fragment.
func (t *tab) location() string {
	t.tb.Helper()
	return eval[string](t, `location.pathname + location.search + location.hash`)
}

// entryIDs are the ids of the transcript's entries, in page order: the
// elements id="entry-{id}" of #entries that show an entry (not the empty
// anchors of the entries the renderer leaves out).
func (t *tab) entryIDs() []string {
	t.tb.Helper()
	return eval[[]string](t, `Array.from(document.querySelectorAll("#entries > [id^='entry-']:not(.unshown)"), (e) => e.id.slice(6))`)
}

// mustAppend appends line and a newline to the file at path: a committed
// line, as an agent writes it.
func mustAppend(tb testing.TB, path, line string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// pathIDs are the ids of the path to leaf, as archive.Path answers it.
func pathIDs(tb testing.TB, a *archive.Archive, session, leaf string) []string {
	tb.Helper()
	p, err := a.Path(context.Background(), session, leaf)
	if err != nil {
		tb.Fatalf("Path(%s, %s): %v", session, leaf, err)
	}
	ids := make([]string, len(p.Entries))
	for i, e := range p.Entries {
		ids[i] = e.EntryID
	}
	return ids
}
