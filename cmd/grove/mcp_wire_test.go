package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A client that sends a line grove mcp cannot take — not JSON, a batch,
// an id that is an object, a line of the wrong shape — gets a JSON-RPC
// error for that line (-32700 or -32600, with the line's id when it has a
// good one), and the session goes on: the next request is answered and
// grove exits 0 when stdin ends. Driven over real pipes, byte lines as a
// client writes them.
func TestMCP_BadLinesAnsweredSessionGoesOn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "index.db")
	root := t.TempDir()
	copyTree(t, root, "pi")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage{`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":42}`,
		``,
		`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`,
	}, "\n") + "\n"
	cmd := exec.Command(mustGroveBinary(t), "--db", db, "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stdin, in); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Error  *struct{ Code int }
		Result json.RawMessage `json:"result"`
	}
	// Replies, until tools/list's (id 8), the last request, is answered;
	// the bad lines are answered as they are read, so before some others.
	got := map[string]int{}
	var last reply
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", sc.Text(), err)
		}
		code := 0
		if r.Error != nil {
			code = r.Error.Code
		}
		got[fmt.Sprintf("%s %d", r.ID, code)]++
		if string(r.ID) == "8" {
			last = r
			break
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("grove mcp after stdin closed: %v\nstderr:\n%s", err, errb.String())
	}
	want := map[string]int{"1 0": 1, "null -32700": 1, "null -32600": 2, "7 -32600": 1, "8 0": 1}
	if !maps.Equal(got, want) {
		t.Errorf("replies (id code: count) %v, want %v", got, want)
	}
	if !bytes.Contains(last.Result, []byte(`"search"`)) {
		t.Errorf("tools/list after the bad lines lists no search tool: %s", last.Result)
	}
}

// A client that writes its requests and closes its end at once (a pipe:
// `printf … | grove mcp`) gets every answer before grove mcp exits 0: the
// end of the input waits for the requests already read.
func TestMCP_AnswersBeforeInputEnds(t *testing.T) {
	db := filepath.Join(t.TempDir(), "index.db")
	root := t.TempDir()
	copyTree(t, root, "pi")
	if _, err := runGrove(t, db, "index", "--root", root); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for id := 2; id <= 9; id++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sessions","arguments":{}}}`, id))
	}
	cmd := exec.Command(mustGroveBinary(t), "--db", db, "mcp")
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("grove mcp: %v\n%s", err, errb.String())
	}
	answered := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.Result != nil {
			answered[string(r.ID)] = true
		}
	}
	for id := 1; id <= 9; id++ {
		if !answered[fmt.Sprint(id)] {
			t.Errorf("request %d got no answer before grove mcp exited; stdout:\n%.2000s", id, out.String())
		}
	}
}
