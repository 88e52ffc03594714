package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grove-sessions/grove/internal/testutil"
)

// appendResult is `grove --json append`'s answer.
type appendResult struct {
	Appended []string `json:"appended"`
	Failed   []struct {
		Line    int    `json:"line"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"failed"`
	Header bool `json:"header"`
}

// pipeAppend runs `grove --json append FILE` with in on its standard input
// through a pipe, as `cat in | grove append FILE` does.
func pipeAppend(t *testing.T, file string, in []byte) (appendResult, string, error) {
	t.Helper()
	cmd := exec.Command(mustGroveBinary(t), "--db", filepath.Join(t.TempDir(), "i.db"), "--json", "append", file)
	cmd.Stdin = bytes.NewReader(in) // not a file: exec copies it through a pipe
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var res appendResult
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil && err == nil {
		t.Fatalf("grove append answered %q: %v", out.String(), jerr)
	}
	return res, errb.String(), err
}

// SPEC §2 and §5 as a user meets them: thousands of entries of every
// dialect grove writes, piped into one `grove append`, lines of 10 bytes to
// over 1 MiB, multibyte and escaped text; the file must hold exactly the
// bytes that went in, and the answer must name every entry.
func TestAppend_PipeKeepsEveryByte(t *testing.T) {
	n, big := 3000, 3
	if testing.Short() {
		n, big = 600, 1
	}
	for i, dialect := range []string{"plain", "pi", "messages"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			in := testutil.AppendInput(dialect, n, big, uint64(i+1))
			file := filepath.Join(t.TempDir(), dialect+".jsonl")
			res, stderr, err := pipeAppend(t, file, in)
			if err != nil {
				t.Fatalf("grove append: %v\n%s", err, stderr)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, in) {
				t.Fatalf("%s: the file is %d bytes, the input %d; first difference at %s", dialect, len(got), len(in), byteDiff(got, in))
			}
			entries := n
			if dialect == "pi" {
				entries-- // the header is no entry
				if !res.Header {
					t.Errorf("answer does not say a header was written")
				}
			}
			if len(res.Appended) != entries || len(res.Failed) != 0 {
				t.Fatalf("answer: %d appended, %d failed (%v); want %d and none", len(res.Appended), len(res.Failed), res.Failed, entries)
			}
			if dialect == "messages" {
				for k, id := range res.Appended {
					if id != "L"+strconv.Itoa(k+1) {
						t.Fatalf("message %d got id %s, want L%d", k+1, id, k+1)
					}
				}
			}
			// What grove reads back agrees: every entry, no diagnostic.
			rec := runJSON(t, "recover", "--strict", file)
			if rec["entries"] != float64(entries) || rec["state"] != "ok" {
				t.Fatalf("recover --strict: %v", rec)
			}
		})
	}
}

// runJSON runs `grove --json ARGS` and decodes its answer.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, err := runGrove(t, filepath.Join(t.TempDir(), "i.db"), append([]string{"--json"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("grove %v answered %q: %v", args, out, err)
	}
	return m
}

// byteDiff names the first byte where got and want differ, with its line.
func byteDiff(got, want []byte) string {
	n := min(len(got), len(want))
	i := 0
	for i < n && got[i] == want[i] {
		i++
	}
	lo := max(i-30, 0)
	return fmt.Sprintf("byte %d (line %d): got %q, want %q", i, bytes.Count(want[:i], []byte("\n"))+1,
		got[lo:min(i+30, len(got))], want[lo:min(i+30, len(want))])
}

// SPEC §2 and §5 under a crash: `grove append` killed with SIGKILL at a
// random moment while thousands of lines stream in through a pipe. What is
// on disk must be the first k input lines, byte for byte, followed at most
// by a torn prefix of line k+1 (which a reader reports as an unterminated
// tail); never a line that was not in the input.
func TestAppend_KillLeavesInputPrefix(t *testing.T) {
	rounds := 4
	if os.Getenv(testutil.SlowEnv) == "1" && !testing.Short() {
		rounds = 16
	}
	r := rand.New(rand.NewPCG(7, 7))
	for round := range rounds {
		dialect := []string{"plain", "pi", "messages"}[round%3]
		in := testutil.AppendInput(dialect, 4000, 2, uint64(100+round))
		file := filepath.Join(t.TempDir(), "killed.jsonl")
		cmd := exec.Command(mustGroveBinary(t), "--db", filepath.Join(t.TempDir(), "i.db"), "append", file)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pieces := rand.New(rand.NewPCG(uint64(round), 1)) // the goroutine's own
		go func() {
			// Written in uneven pieces, so the kill can fall anywhere.
			for rest := in; len(rest) > 0; {
				k := min(len(rest), 1+pieces.IntN(64<<10))
				if _, err := stdin.Write(rest[:k]); err != nil {
					return
				}
				rest = rest[k:]
			}
			stdin.Close()
		}()
		time.Sleep(time.Duration(20+r.IntN(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		got, err := os.ReadFile(file)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		committed := got[:bytes.LastIndexByte(got, '\n')+1]
		if !bytes.HasPrefix(in, committed) {
			t.Fatalf("round %d (%s): the committed %d bytes are not a prefix of the input: %s", round, dialect, len(committed), byteDiff(committed, in))
		}
		tail := got[len(committed):]
		if !bytes.HasPrefix(in[len(committed):], tail) {
			t.Fatalf("round %d (%s): the %d-byte tail is not the start of the next input line", round, dialect, len(tail))
		}
		t.Logf("round %d (%s): killed after %d of %d lines, tail %d bytes", round, dialect, bytes.Count(committed, []byte("\n")), 4000, len(tail))
		if len(got) == 0 {
			continue
		}
		rec := runJSON(t, "recover", file)
		wantState := "ok"
		if len(tail) > 0 {
			wantState = "needs-repair"
		}
		if rec["state"] != wantState || len(rec["errors"].([]any)) != 0 {
			t.Fatalf("round %d: recover = %v, want state %s and no bad line", round, rec, wantState)
		}
	}
}

// The resume chapter's own two functions against grove's messages log, in
// both directions: its saveMessages (appendFileSync of JSON.stringify(msg)
// + "\n", a message at a time) and loadMessages (split on LF, drop blank
// lines, JSON.parse each), run by node. A log the chapter wrote and grove
// appended many messages to at once reads back in loadMessages as all of
// them in order; a log grove wrote and the chapter appended to reads back
// in `grove messages` as all of them.
func TestAppend_ChapterMessagesLog(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the resume chapter's saveMessages/loadMessages cannot run (apt-get install nodejs)")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "chapter.js")
	testutil.MustWriteFile(t, dir, "chapter.js", []byte(`
const fs = require("fs");
const [,, op, file, arg] = process.argv;
// The chapter's saveMessages and loadMessages, as written there.
function saveMessages(msgs) {
  for (const msg of msgs) fs.appendFileSync(file, JSON.stringify(msg) + "\n", "utf-8");
}
function loadMessages() {
  return fs.readFileSync(file, "utf-8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}
if (op === "save") saveMessages(JSON.parse(fs.readFileSync(arg, "utf-8")));
else process.stdout.write(JSON.stringify(loadMessages()));
`))
	chapter := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(node, append([]string{script}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("node chapter.js %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// The messages: text with escapes and multibyte characters, tool calls.
	in := testutil.AppendInput("messages", 400, 1, 9)
	var msgs []json.RawMessage
	for _, l := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
		msgs = append(msgs, json.RawMessage(l))
	}
	canon := func(raws []json.RawMessage) string {
		var vs []any
		for _, r := range raws {
			var v any
			if err := json.Unmarshal(r, &v); err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
		b, _ := json.Marshal(vs)
		return string(b)
	}
	want := canon(msgs)
	saveFile := func(raws []json.RawMessage) string {
		b, _ := json.Marshal(raws)
		return testutil.MustWriteFile(t, dir, fmt.Sprintf("batch-%d.json", len(raws)), b)
	}
	lines := func(raws []json.RawMessage) []byte {
		var b bytes.Buffer
		for _, r := range raws {
			b.Write(r)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	loaded := func(file string) string {
		var got []json.RawMessage
		if err := json.Unmarshal([]byte(chapter("load", file)), &got); err != nil {
			t.Fatal(err)
		}
		return canon(got)
	}

	t.Run("chapter first, grove appends many at once", func(t *testing.T) {
		file := filepath.Join(dir, "a.jsonl")
		chapter("save", file, saveFile(msgs[:150]))
		res, stderr, err := pipeAppend(t, file, lines(msgs[150:]))
		if err != nil || len(res.Appended) != 250 || res.Appended[0] != "L151" || res.Appended[249] != "L400" {
			t.Fatalf("grove append: %v %s; appended %d (%v...)", err, stderr, len(res.Appended), res.Appended[:min(3, len(res.Appended))])
		}
		if got := loaded(file); got != want {
			t.Fatalf("loadMessages after grove's append differs from the messages saved")
		}
	})
	t.Run("grove first, chapter appends", func(t *testing.T) {
		file := filepath.Join(dir, "b.jsonl")
		if res, stderr, err := pipeAppend(t, file, lines(msgs[:250])); err != nil || len(res.Appended) != 250 {
			t.Fatalf("grove append: %v %s; appended %d", err, stderr, len(res.Appended))
		}
		chapter("save", file, saveFile(msgs[250:]))
		if got := loaded(file); got != want {
			t.Fatalf("loadMessages differs from the messages saved")
		}
		db := filepath.Join(t.TempDir(), "i.db")
		out, err := runGrove(t, db, "--json", "messages", file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Leaf     string            `json:"leaf"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Leaf != "L400" || canon(doc.Messages) != want {
			t.Fatalf("grove messages: leaf %s, %d messages; want L400 and the 400 saved", doc.Leaf, len(doc.Messages))
		}
		if !strings.Contains(out, `\u00e9`) && !strings.Contains(out, "é") {
			t.Fatalf("grove messages lost the text")
		}
	})
}
