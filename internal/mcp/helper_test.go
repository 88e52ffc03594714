package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/mcp"
	"github.com/grove-sessions/grove/internal/testutil"
)

// fixture is grove's MCP server over an index of sessions copied into a
// temporary root, and an SDK client connected to it in memory.
type fixture struct {
	root string // the sessions
	db   string
	c    *sdk.ClientSession
}

// mustFixture indexes copies of the testdata dirs (and the files of
// extra, name to content) into a new index and connects a client to a
// server over it.
func mustFixture(tb testing.TB, extra map[string][]byte, dirs ...string) *fixture {
	tb.Helper()
	f := &fixture{root: tb.TempDir(), db: testutil.MustTempDB(tb)}
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(testutil.Testdata(tb, d), "*.jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range files {
			testutil.MustCopy(tb, p, f.root, filepath.Join(d, filepath.Base(p)))
		}
	}
	for name, data := range extra {
		testutil.MustWriteFile(tb, f.root, name, data)
	}
	mustIndex(tb, f.db, f.root)
	f.c = mustConnect(tb, f.db)
	return f
}

// mustIndex indexes the sessions under root into db, as grove index does.
func mustIndex(tb testing.TB, db, root string) {
	tb.Helper()
	ctx := context.Background()
	w, err := archive.OpenForWrite(ctx, db, func(m string) { tb.Logf("index: %s", m) })
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	sum, err := w.Index(ctx, archive.IndexOptions{Roots: []string{root}})
	if err != nil {
		tb.Fatal(err)
	}
	if len(sum.Failed) > 0 {
		tb.Fatalf("index: %d files failed: %v", len(sum.Failed), sum.Failed)
	}
}

// mustConnect starts grove's MCP server over the index db and connects
// an SDK client to it through the SDK's in-memory transports.
func mustConnect(tb testing.TB, db string) *sdk.ClientSession {
	tb.Helper()
	ctx := context.Background()
	s, err := mcp.New(mcp.Options{DB: db, Grove: "grove", Version: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := sdk.NewClient(&sdk.Implementation{Name: "grove-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		c.Close()
		ss.Wait()
		s.Close()
	})
	return c
}

// result is one call's answer: its structured result as JSON, whether
// it is an error, and its text.
type result struct {
	doc   json.RawMessage
	error bool
	text  []string
}

// call calls tool with args and returns its result; a protocol error
// fails the test.
func call(tb testing.TB, c *sdk.ClientSession, tool string, args any) result {
	tb.Helper()
	res, err := c.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		tb.Fatalf("%s %v: %v", tool, args, err)
	}
	r := result{error: res.IsError}
	for _, ct := range res.Content {
		if t, ok := ct.(*sdk.TextContent); ok {
			r.text = append(r.text, t.Text)
		}
	}
	if res.StructuredContent != nil {
		r.doc, err = json.Marshal(res.StructuredContent)
		if err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// must is call for an answer that is no error.
func must(tb testing.TB, c *sdk.ClientSession, tool string, args any) map[string]json.RawMessage {
	tb.Helper()
	r := call(tb, c, tool, args)
	if r.error {
		tb.Fatalf("%s %v: an error: %s", tool, args, r.text)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.doc, &m); err != nil {
		tb.Fatalf("%s %v: structured result %s: %v", tool, args, r.doc, err)
	}
	if len(r.text) == 0 || !jsonEqual(tb, []byte(r.text[0]), r.doc) {
		tb.Errorf("%s %v: the text %q is not the structured result %s", tool, args, r.text, r.doc)
	}
	return m
}

// errorObject is an error result's {"error":{...}}, failing the test for
// an answer that is no error.
func errorObject(tb testing.TB, c *sdk.ClientSession, tool string, args any) map[string]any {
	tb.Helper()
	r := call(tb, c, tool, args)
	if !r.error {
		tb.Fatalf("%s %v: no error: %s", tool, args, r.doc)
	}
	var e struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(r.doc, &e); err != nil || e.Error == nil {
		tb.Fatalf("%s %v: error result %s (%v) is no {\"error\":{...}}", tool, args, r.doc, err)
	}
	return e.Error
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	return string(canonical(tb, a)) == string(canonical(tb, b))
}

// canonical is v decoded and encoded again: members sorted, numbers as
// written, no insignificant space.
func canonical(tb testing.TB, v []byte) []byte {
	tb.Helper()
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		tb.Fatalf("decode %.200s: %v", v, err)
	}
	out, err := json.Marshal(x)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// appendTo appends data to the file at path.
func appendTo(tb testing.TB, path string, data []byte) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		tb.Fatal(err)
	}
}
