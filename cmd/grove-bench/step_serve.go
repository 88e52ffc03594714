package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// The serve step: grove serve, the real binary, on a generated session of
// about 100,000 entries and on the largest pi and Claude Code sessions of
// the shared corpus. Headless Chromium opens each session's tree page and
// the transcript page of its active leaf ServeRuns times; the figures are
// the document's Navigation Timing entry (time to first byte,
// DOMContentLoaded, load event end) and its transferred size. Then the
// server's resident set, and the latency of /search and /api/search over
// plain HTTP.

// Limits of the serve step.
const (
	// serveFirstPass is how long grove serve may take to print its URL
	// and the line of its first pass (a cold index of every root).
	serveFirstPass = 10 * time.Minute
	// servePage is how long one page may take in the browser.
	servePage = 2 * time.Minute
)

// defaultServeSize is the generated session's size: with seed 1 and no
// image, corpusgen writes 100,102 entries (370 leaves) into 142 MB.
const defaultServeSize = "142MB"

// serveSession is one session the serve step opens.
type serveSession struct {
	Label   string // what the figures call it
	File    string // absolute path
	ID      string // session id, from /api/sessions
	Leaf    string // active leaf (else the newest), from /api/leaves
	Entries int
	Depth   int // entries on the path to Leaf
	Leaves  int
}

// navTiming is what the page reports of its own load: the Navigation
// Timing entry (ms from navigation start, bytes) and how many entries it
// drew.
type navTiming struct {
	Status        int     `json:"status"` // HTTP status of the document
	ResponseStart float64 `json:"responseStart"`
	DOMContent    float64 `json:"domContentLoadedEventEnd"`
	LoadEnd       float64 `json:"loadEventEnd"`
	Transfer      float64 `json:"transferSize"`
	Encoded       float64 `json:"encodedBodySize"`
	Decoded       float64 `json:"decodedBodySize"`
	Anchors       int     `json:"anchors"` // elements with id="entry-…"
	Rows          int     `json:"rows"`    // rows of the tree drawn (.rows-tree .tr)
}

// navScript reads navTiming once the load event has ended ("" before).
const navScript = `(() => {
  const n = performance.getEntriesByType("navigation")[0];
  if (!n || !(n.loadEventEnd > 0)) return "";
  return JSON.stringify({status: n.responseStatus, responseStart: n.responseStart, domContentLoadedEventEnd: n.domContentLoadedEventEnd,
    loadEventEnd: n.loadEventEnd, transferSize: n.transferSize, encodedBodySize: n.encodedBodySize,
    decodedBodySize: n.decodedBodySize, anchors: document.querySelectorAll('[id^="entry-"]').length,
    rows: document.querySelectorAll(".rows-tree .tr").length});
})()`

// serveStep runs the serve step's measurements (see above). The generated
// session is kept in WORK/serve-SIZE-seedN; the index is a new one in
// WORK, removed after.
func (s *suite) serveStep(ctx context.Context) error {
	const sec = "serve"
	o := s.auxOptions()
	o.Size, o.BigSession, o.ImageRate = 0, s.cfg.ServeSize, 0
	genDir, m, err := s.auxCorpus(ctx, fmt.Sprintf("serve-%d-seed%d", s.cfg.ServeSize, o.Seed), o, "--serve-size")
	if err != nil {
		return err
	}
	gen := m.Files[0]
	sessions := []*serveSession{{Label: fmt.Sprintf("generated pi (%s entries)", thousands(gen.Entries)), File: filepath.Join(genDir, filepath.FromSlash(gen.Path))}}
	roots := []string{genDir}
	corpus, why := s.serveCorpus()
	for _, d := range []struct{ dialect, sub string }{{"pi", "pi"}, {"claude", "claude"}} {
		if why != "" {
			s.skip(sec, "corpus "+d.dialect+" session", why)
			continue
		}
		f := largestSession(filepath.Join(corpus, d.sub))
		if f == "" {
			s.skip(sec, "corpus "+d.dialect+" session", fmt.Sprintf("no %s session (*.jsonl outside subagents/) under %s", d.dialect, filepath.Join(corpus, d.sub)))
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if len(name) > 16 {
			name = name[:8] // a uuid: its first group names it well enough
		}
		sessions = append(sessions, &serveSession{Label: fmt.Sprintf("corpus %s %s", d.dialect, name), File: f})
		roots = append(roots, filepath.Dir(f))
	}

	db := filepath.Join(s.cfg.Work, "serve.db")
	removeDB(db)
	defer removeDB(db)
	srv, err := startServe(ctx, s.grove, db, roots)
	if err != nil {
		return err
	}
	defer srv.stop()
	f := figureOf(sec, "first pass: index of the served files", "s", []float64{srv.firstPass.Seconds()})
	f.Note = srv.passLine
	s.add(f)
	idle := srv.status()
	if err := srv.resetPeak(); err != nil {
		fmt.Fprintf(s.log, "   cannot reset the server's VmHWM (%v): its peak while serving includes the first pass\n", err)
	}
	for _, ss := range sessions {
		if err := srv.describe(ctx, ss); err != nil {
			return err
		}
		fmt.Fprintf(s.log, "   %s: %s, leaf %s at depth %d of %d entries\n", ss.Label, ss.ID, ss.Leaf, ss.Depth, ss.Entries)
	}

	var peak float64 // the largest VmHWM of one page's loads; 0 when not reset
	browser := s.cfg.Chromium
	if browser == "" {
		browser = findChromium()
	}
	if browser == "" {
		s.skip(sec, "pages in Chromium", "no Chromium: install Debian's chromium-headless-shell (or chromium), or pass --chromium PATH")
	} else if peak, err = s.servePages(ctx, sec, browser, srv, sessions); err != nil {
		return err
	}
	served := srv.status()
	s.add(Figure{Section: sec, Name: "server RSS after the first pass (idle)", Median: idle.rss, Min: idle.rss, Max: idle.rss, Unit: "MB", Runs: 1,
		Note: fmt.Sprintf("VmHWM %.1f MB: the first pass's peak", idle.hwm)})
	note := "VmHWM since the first pass (reset through /proc/PID/clear_refs)"
	switch {
	case !srv.peakReset:
		note = "VmHWM of the whole run: clear_refs could not reset it"
	case peak > 0:
		served.hwm, note = peak, "the largest VmHWM of one page's loads (reset before each page, to the RSS then)"
	}
	s.add(Figure{Section: sec, Name: "server RSS after serving the pages", Median: served.rss, Min: served.rss, Max: served.rss, Unit: "MB", Runs: 1})
	s.add(Figure{Section: sec, Name: "server peak RSS while serving the pages", Median: served.hwm, Min: served.hwm, Max: served.hwm, Unit: "MB", Runs: 1, Note: note})

	if err := s.serveSearch(ctx, sec, srv.url); err != nil {
		return err
	}
	after := srv.status()
	s.add(Figure{Section: sec, Name: "server RSS after the searches", Median: after.rss, Min: after.rss, Max: after.rss, Unit: "MB", Runs: 1,
		Note: fmt.Sprintf("VmHWM %.1f MB", after.hwm)})
	return srv.stop()
}

// serveCorpus is the shared corpus directory the serve step takes its
// real sessions from, or why there is none.
func (s *suite) serveCorpus() (string, string) {
	dir := s.cfg.ServeCorpus
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", "no corpus: " + err.Error()
		}
		dir = filepath.Join(root, "..", "shared", "corpus")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Sprintf("no corpus directory %s (pass --serve-corpus DIR)", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err.Error()
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs, ""
}

// largestSession is the largest *.jsonl file under dir that is not a
// Claude sub-agent's (in a subagents directory); "" when there is none.
func largestSession(dir string) string {
	var best string
	var size int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == "subagents" {
				return filepath.SkipDir
			}
			return nil
		}
		if fi, err := d.Info(); err == nil && strings.HasSuffix(p, ".jsonl") && fi.Mode().IsRegular() && fi.Size() > size {
			best, size = p, fi.Size()
		}
		return nil
	})
	return best
}

// findChromium is the first headless-capable Chromium on this machine.
func findChromium() string {
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// servePages opens the tree and the transcript page of each session
// ServeRuns times in headless Chromium, each load in a new tab, and reads
// the server's peak RSS over each page's runs (VmHWM reset before them,
// when it can be).
func (s *suite) servePages(ctx context.Context, sec, browser string, srv *serveProc, sessions []*serveSession) (peak float64, err error) {
	base := srv.url
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.DisableGPU)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		return 0, fmt.Errorf("start %s: %w", browser, err)
	}
	for _, ss := range sessions {
		for _, pg := range []struct{ kind, path, what string }{
			{"tree", "/s/" + url.PathEscape(ss.ID), fmt.Sprintf("%d leaves", ss.Leaves)},
			{"transcript", "/s/" + url.PathEscape(ss.ID) + "/" + url.PathEscape(ss.Leaf), fmt.Sprintf("active leaf at depth %s", thousands(ss.Depth))},
		} {
			var ttfb, dcl, load, kb []float64
			var last navTiming
			reset := srv.resetPeak() == nil
			before := srv.status().rss // a reset peak starts here: what earlier pages left resident
			for i := 0; i < s.cfg.ServeRuns; i++ {
				t, err := loadPage(bctx, base+strings.TrimPrefix(pg.path, "/"))
				if err != nil {
					return 0, fmt.Errorf("%s %s page: %w", ss.Label, pg.kind, err)
				}
				ttfb = append(ttfb, t.ResponseStart)
				dcl = append(dcl, t.DOMContent)
				load = append(load, t.LoadEnd)
				kb = append(kb, t.Transfer/1024)
				last = t
				fmt.Fprintf(s.log, "   %s %s run %d: first byte %.0f ms, loaded %.0f ms, %.0f KB\n", ss.Label, pg.kind, i+1, t.ResponseStart, t.LoadEnd, t.Transfer/1024)
			}
			name := ss.Label + ": " + pg.kind
			f := figureOf(sec, name+": time to first byte", "ms", ttfb)
			f.Note = pg.what
			s.add(f)
			s.add(figureOf(sec, name+": DOMContentLoaded", "ms", dcl))
			s.add(figureOf(sec, name+": finished page (load event end)", "ms", load))
			f = figureOf(sec, name+": transferred", "KB", kb)
			f.Note = fmt.Sprintf("%s of HTML decoded; %d tree rows drawn", kbOf(int(last.Decoded)), last.Rows)
			if pg.kind == "transcript" {
				f.Note = fmt.Sprintf("%s of HTML decoded; %d entries drawn", kbOf(int(last.Decoded)), last.Anchors)
			}
			s.add(f)
			if reset {
				hwm := srv.status().hwm
				peak = max(peak, hwm)
				s.add(Figure{Section: sec, Name: name + ": server peak RSS", Median: hwm, Min: hwm, Max: hwm, Unit: "MB", Runs: 1,
					Note: fmt.Sprintf("VmHWM over this page's loads; RSS was %.0f MB before them", before)})
			}
		}
	}
	return peak, nil
}

// loadPage opens u in a new tab and returns its navTiming once the load
// event has ended.
func loadPage(bctx context.Context, u string) (navTiming, error) {
	tctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	tctx, cancelT := context.WithTimeout(tctx, servePage)
	defer cancelT()
	var t navTiming
	if err := chromedp.Do(tctx, chromedp.Navigate(u)); err != nil {
		return t, err
	}
	for {
		v, err := chromedp.Run(tctx, chromedp.Evaluate[string](navScript))
		if err != nil {
			return t, err
		}
		if v != "" {
			if err := json.Unmarshal([]byte(v), &t); err != nil {
				return t, err
			}
			if t.Status != http.StatusOK {
				return t, fmt.Errorf("GET %s: status %d", u, t.Status)
			}
			return t, nil
		}
		select {
		case <-tctx.Done():
			return t, tctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// serveSearch times GET /search?q= and /api/search?q= for each of the
// suite's queries over plain HTTP, the whole body read: one warm-up, then
// ServeRuns runs.
func (s *suite) serveSearch(ctx context.Context, sec, base string) error {
	client := &http.Client{Timeout: servePage}
	get := func(u string) (int, time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return 0, 0, err
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", u, resp.Status)
		}
		return int(n), d, err
	}
	for _, q := range queries {
		var total int
		var exact bool
		{ // the hits, from the API
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"api/search?limit=20&q="+url.QueryEscape(q.Grove), nil)
			if err != nil {
				return err
			}
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			var doc struct {
				Total int  `json:"total"`
				Exact bool `json:"total_exact"`
			}
			err = json.NewDecoder(resp.Body).Decode(&doc)
			resp.Body.Close()
			if err != nil {
				return fmt.Errorf("/api/search?q=%s: %w", q.Grove, err)
			}
			total, exact = doc.Total, doc.Exact
		}
		for _, ep := range []struct{ name, path string }{{"/search", "search?q="}, {"/api/search", "api/search?limit=20&q="}} {
			var lat []float64
			var size int
			for i := 0; i < s.cfg.ServeRuns+1; i++ {
				n, d, err := get(base + ep.path + url.QueryEscape(q.Grove))
				if err != nil {
					return err
				}
				if i > 0 {
					lat = append(lat, ms(d))
				}
				size = n
			}
			f := figureOf(sec, ep.name+" "+q.Name+": "+q.Grove, "ms", lat)
			more := ""
			if !exact {
				more = "+"
			}
			f.Note = fmt.Sprintf("%d%s hits; %s", total, more, kbOf(size))
			s.add(f)
		}
	}
	return nil
}

// kbOf prints a byte count as B, KB or MB.
func kbOf(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return mb(int64(n))
}

// thousands prints n with a comma every three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
