package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/mcpnode"
	"github.com/grove-sessions/grove/internal/testutil"
)

// mcpSDK is the npm prefix of the official TypeScript MCP SDK (pinned in
// mcpnode), installed once into the user cache directory
// (grove-test/mcp-sdk-VERSION). It skips the test, saying why, without
// node and npm or when npm cannot install it.
func mcpSDK(t *testing.T) string {
	t.Helper()
	dir := mcpnode.CacheDir()
	if err := mcpnode.Install(context.Background(), dir); err != nil {
		t.Skipf("skipping: grove mcp is tested with the official TypeScript client, %s %s from npm, which could not be had: %v", mcpnode.Package, mcpnode.Version, err)
	}
	return dir
}

// startMCP starts `grove --db db mcp` (the real binary) under the
// official TypeScript client, with this process's environment, in dir.
// The client is closed at the end of the test; grove mcp must have
// written nothing to stderr and exited 0.
func startMCP(t *testing.T, db, dir string) *mcpnode.Client {
	t.Helper()
	sdk := mcpSDK(t)
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	c, err := mcpnode.Start(context.Background(), sdk, mcpnode.Server{Command: mustGroveBinary(t), Args: []string{"--db", db, "mcp"}, Env: env, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stderr, err := c.Close()
		if err != nil || stderr != "" {
			t.Errorf("the client and grove mcp ended with %v; stderr:\n%s", err, stderr)
		}
	})
	return c
}

// copyTree copies every file under testdata's dirs into root, keeping
// their paths below testdata.
func copyTree(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		src := testutil.Testdata(t, d)
		err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			rel, err := filepath.Rel(testutil.Testdata(t, ""), p)
			if err == nil {
				testutil.MustCopy(t, p, root, rel)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// groveJSON runs `grove --db db --json ARGS...` in dir and returns its
// stdout and exit status (the error document, for a failure).
func groveJSON(t *testing.T, db, dir string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(mustGroveBinary(t), append([]string{"--db", db, "--json"}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("grove %v: %v", args, err)
	}
	return out.Bytes(), code
}

// canonicalJSON is v decoded and encoded again: members sorted, numbers
// as written, strings escaped alike.
func canonicalJSON(t *testing.T, v []byte) string {
	t.Helper()
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		t.Fatalf("decode %.300s: %v", v, err)
	}
	out, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// cliArgs is a tool call as grove's command line: tool, then each
// argument as its flag (repeated for a list, alone for true), then the
// positional ones (query; session, leaf), after "--".
func cliArgs(tool string, args map[string]any) []string {
	out := []string{tool}
	var keys []string
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := args[k].(type) {
		case string:
			if k != "query" && k != "leaf" && !(k == "session" && isOneSession(tool)) {
				out = append(out, "--"+k+"="+v)
			}
		case bool:
			if v {
				out = append(out, "--"+k)
			}
		case int:
			out = append(out, "--"+k+"="+strconv.Itoa(v))
		case []string:
			for _, x := range v {
				out = append(out, "--"+k+"="+x)
			}
		}
	}
	out = append(out, "--")
	if q, ok := args["query"].(string); ok {
		out = append(out, q)
	}
	if isOneSession(tool) {
		out = append(out, args["session"].(string))
		if l, ok := args["leaf"].(string); ok {
			out = append(out, l)
		}
	}
	return out
}

func isOneSession(tool string) bool {
	return tool == "path" || tool == "messages" || tool == "context" || tool == "tree"
}
