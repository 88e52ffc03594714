package serve_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// A transcript shows its leaf's resume command (SPEC §12) with a copy
// button that app.js makes: clicking it puts the command on the
// clipboard (the tab is granted the clipboard, as a person's browser asks
// for it on loopback), read back through the Clipboard API. Another pi
// leaf shows the grove resume --exec line that forks it first; a session
// whose workspace is gone shows why there is no command, and no button.
func TestBrowser_ResumeCopy(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "my app") // a space: the command quotes it
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	v3, err := os.ReadFile(testutil.Testdata(t, "pi/v3-tree.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	here := bytes.Replace(v3, []byte(`"cwd":"/workspace/demo-app"`), []byte(`"cwd":"`+ws+`"`), 1)
	here = bytes.Replace(here, []byte(`5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13`), []byte(`5b7e2c14-0000-4000-8000-000000000099`), 1)
	s := mustSiteOf(t, siteOptions{Files: map[string]string{"v3-tree.jsonl": "pi/v3-tree.jsonl"}, Made: map[string][]byte{"here.jsonl": here}})
	b := mustTab(t)
	b.do("grant the clipboard", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, tg, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: s.URL}); err != nil {
				return err
			}
		}
		return nil
	}))

	b.open(s, "/s/5b7e2c14-0000-4000-8000-000000000099/b7395fc2")
	want := "cd '" + ws + "' && pi --session " + s.Files["here.jsonl"]
	if got := eval[string](b, `document.getElementById("resume-cmd").textContent`); got != want {
		t.Errorf("the active leaf's resume command reads %q, want %q", got, want)
	}
	if got := eval[string](b, `(document.querySelector("button.copy") || {}).dataset ? document.querySelector("button.copy").dataset.copy : ""`); got != "resume-cmd" {
		t.Fatalf("no copy button for the command (data-copy %q)", got)
	}
	b.do("click Copy", chromedp.Click(chromedp.CSS("button.copy")),
		chromedp.Poll[chromedp.Void](`document.querySelector("button.copy").textContent !== "Copy"`, chromedp.WithPollingInterval(20*time.Millisecond)))
	if got := eval[string](b, `document.querySelector("button.copy").textContent`); got != "Copied" {
		t.Errorf("after the click the button says %q, want Copied", got)
	}
	clip, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("read the clipboard: %v", err)
	}
	if clip != want {
		t.Errorf("the clipboard holds %q, want %q", clip, want)
	}

	b.open(s, "/s/5b7e2c14-0000-4000-8000-000000000099/35c7e0da")
	if got, want := eval[string](b, `document.getElementById("resume-cmd").textContent`), "grove resume --exec 5b7e2c14-0000-4000-8000-000000000099 35c7e0da"; got != want {
		t.Errorf("another pi leaf's command reads %q, want %q", got, want)
	}
	if got := eval[string](b, `document.querySelector("dd.resume").textContent`); !strings.Contains(got, "grove forks the path to this leaf") {
		t.Errorf("another pi leaf's resume says %q, want it to say grove forks first", got)
	}

	b.open(s, "/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13/b7395fc2")
	if n := eval[int](b, `document.querySelectorAll("#resume-cmd, button.copy").length`); n != 0 {
		t.Errorf("a session whose workspace is gone shows %d command or copy elements", n)
	}
	if got := eval[string](b, `document.querySelector("dd.resume").textContent`); !strings.Contains(got, "the session's workspace /workspace/demo-app does not exist here") {
		t.Errorf("a session whose workspace is gone says %q", got)
	}
}

// Two files that share a session id (two copies of one project folder):
// the copied command names the session by its file, which grove resume
// takes, since the id alone is ambiguous_session.
func TestBrowser_ResumeCopyNamesSharedIDByFile(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "app")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	v3, err := os.ReadFile(testutil.Testdata(t, "pi/v3-tree.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	here := bytes.Replace(v3, []byte(`"cwd":"/workspace/demo-app"`), []byte(`"cwd":"`+ws+`"`), 1)
	s := mustSiteOf(t, siteOptions{Made: map[string][]byte{"a.jsonl": here, "b.jsonl": here}})
	b := mustTab(t)
	b.open(s, "/s/5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13/35c7e0da?file="+url.QueryEscape(s.Files["b.jsonl"]))
	want := "grove resume --exec " + archive.ShellQuote(s.Files["b.jsonl"]) + " 35c7e0da"
	if got := eval[string](b, `document.getElementById("resume-cmd").textContent`); got != want {
		t.Errorf("the command of a session whose id another file shares reads %q, want %q", got, want)
	}
}
