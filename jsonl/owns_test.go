package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// The writer owns every byte it queues (SPEC §5): whatever the caller hands
// AppendAsync or CopyAsync, in any form, it may overwrite the moment the
// call returns, while the queue is still holding the append back; the file
// gets what the call was given. The queue is held by a gate on the file so
// that every append is still queued when its input is overwritten.
func TestWriter_OwnsCallerBytes(t *testing.T) {
	line := func(id, parent, text string) []byte {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return []byte(`{"id":"` + id + `","parentId":` + p + `,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"` + text + `"}}`)
	}
	type input struct {
		name string
		// give returns what AppendAsync is handed for the line b, and a
		// function that overwrites every byte of the caller's memory.
		give func(b []byte) (any, func())
	}
	scribble := func(b []byte) func() {
		return func() {
			for i := range b {
				b[i] = 'X'
			}
		}
	}
	inputs := []input{
		{"json.RawMessage", func(b []byte) (any, func()) { return json.RawMessage(b), scribble(b) }},
		{"[]byte", func(b []byte) (any, func()) { return b, scribble(b) }},
		{"*json.RawMessage", func(b []byte) (any, func()) { r := json.RawMessage(b); return &r, scribble(b) }},
		{"RawMessage with spaces", func(b []byte) (any, func()) {
			// Not compact: the writer compacts it, which must not write
			// into, or keep, the caller's slice either.
			spaced := bytes.ReplaceAll(b, []byte(`,"`), []byte(`, "`))
			copy(b[:cap(b)], spaced) // same backing array, longer content
			return json.RawMessage(b[:len(spaced)]), scribble(b[:len(spaced)])
		}},
		{"map holding a RawMessage", func(b []byte) (any, func()) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				panic(err)
			}
			msg := m["message"]
			out := map[string]any{}
			for k, v := range m {
				out[k] = v
			}
			return out, scribble(msg)
		}},
		{"map of values", func(b []byte) (any, func()) {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				panic(err)
			}
			return m, func() {
				m["id"] = "changed"
				m["message"].(map[string]any)["content"] = "changed"
			}
		}},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			ff := &faultFile{gate: make(chan struct{})}
			w := openFaulty(t, path, ff)
			var want bytes.Buffer
			var ps []*Pending
			parent := ""
			for i := range 40 {
				id := fmt.Sprintf("e%02d", i)
				b := line(id, parent, strings.Repeat("é中", i))
				want.Write(b)
				want.WriteByte('\n')
				buf := make([]byte, len(b), len(b)+64)
				copy(buf, b)
				v, overwrite := in.give(buf)
				if strings.HasPrefix(in.name, "map") {
					// Re-serialized in encoding/json's key order: the line
					// is what the value said at the call.
					m, err := MarshalEntry(v)
					if err != nil {
						t.Fatal(err)
					}
					want.Truncate(want.Len() - len(b) - 1)
					want.Write(append(m, '\n'))
				}
				ps = append(ps, w.AppendAsync(v))
				overwrite() // the caller reuses its buffer while the append is queued
				parent = id
			}
			close(ff.gate)
			for i, p := range ps {
				if err := p.Wait(); err != nil {
					t.Fatalf("append %d: %v", i, err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("file differs from what AppendAsync was given: %s", firstDiff(got, want.Bytes()))
			}
		})
	}
	t.Run("CopyAsync", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		ff := &faultFile{gate: make(chan struct{})}
		w := openFaulty(t, path, ff)
		var want bytes.Buffer
		var ps []*Pending
		buf := make([]byte, 0, 4096)
		parent := ""
		for i := range 40 {
			id := fmt.Sprintf("c%02d", i)
			buf = append(buf[:0], line(id, parent, strings.Repeat("🌳", i))...)
			want.Write(buf)
			want.WriteByte('\n')
			ps = append(ps, w.CopyAsync(buf)) // one buffer, reused for every line
			parent = id
		}
		close(ff.gate)
		for i, p := range ps {
			if err := p.Wait(); err != nil {
				t.Fatalf("copy %d: %v", i, err)
			}
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("file differs from what CopyAsync was given: %s", firstDiff(got, want.Bytes()))
		}
	})
}

// firstDiff names the first byte where got and want differ.
func firstDiff(got, want []byte) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i] != want[i] {
			lo := max(i-40, 0)
			return fmt.Sprintf("byte %d (line %d): got %q, want %q", i, bytes.Count(got[:i], []byte("\n"))+1, got[lo:min(i+40, len(got))], want[lo:min(i+40, len(want))])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// A messages log has no ids in its lines: each queued append's L<n> counts
// every append issued before it, committed or queued (SPEC §5), so a caller
// may issue many at once as the chapter's saveMessages(msgs) does; an
// append refused at the call frees its line for the next one.
func TestWriter_MessagesLogManyAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	ff := &faultFile{gate: make(chan struct{})}
	w := openFaulty(t, path, ff)
	var ps []*Pending
	var want []string
	for i := range 300 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		if i == 7 {
			// Refused at the call (content a number): its line goes to the next.
			if err := w.AppendAsync(json.RawMessage(`{"role":"user","content":7}`)).Wait(); errs.CodeOf(err) != errs.CodeInvalidEntry {
				t.Fatalf("bad message = %v, want invalid_entry", err)
			}
		}
		ps = append(ps, w.AppendAsync(map[string]any{"role": role, "content": fmt.Sprintf("message %d", i)}))
		want = append(want, fmt.Sprintf("L%d", i+1))
		if i == 50 {
			close(ff.gate) // 51 queued at once; the rest race the commits
		}
	}
	var got []string
	for i, p := range ps {
		if err := p.Wait(); err != nil {
			t.Fatalf("append %d (%s): %v", i, p.ID, err)
		}
		got = append(got, p.ID)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ids = %v, want L1..L300", got)
	}
	es, res, err := ReadFile(path, Strict)
	if err != nil || res.Dialect != Messages || len(es) != 300 {
		t.Fatalf("read back %d entries of dialect %s: %v", len(es), res.Dialect, err)
	}
	for i, e := range es {
		if e.ID != want[i] || (i > 0 && e.ParentID != want[i-1]) {
			t.Fatalf("entry %d = %s (parent %s), want %s under %s", i, e.ID, e.ParentID, want[i], want[max(i-1, 0)])
		}
	}
	// The writer goes on from what is committed: a later batch continues the
	// numbering, and a new writer on the file does too.
	more := w.AppendAsync(map[string]any{"role": "user", "content": "one more"})
	if err := more.Wait(); err != nil || more.ID != "L301" {
		t.Fatalf("next append = %s, %v; want L301", more.ID, err)
	}
	w.Close()
	w2 := mustOpenWriter(t, path)
	p1 := w2.AppendAsync(map[string]any{"role": "user", "content": "a"})
	p2 := w2.AppendAsync(map[string]any{"role": "assistant", "content": "b"})
	if p1.Wait() != nil || p2.Wait() != nil || p1.ID != "L302" || p2.ID != "L303" {
		t.Fatalf("reopened: %s %v, %s %v; want L302 L303", p1.ID, p1.Wait(), p2.ID, p2.Wait())
	}
	if _, err := w2.Entries(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A messages log ending in a blank tail (spaces, no LF): the writer ends
// that line first, so the next message is on the line after it, and its
// id says so.
func TestWriter_MessagesLogBlankTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(path, []byte(`{"role":"user","content":"hi"}`+"\n  "), 0o600); err != nil {
		t.Fatal(err)
	}
	w := mustOpenWriter(t, path)
	p1 := w.AppendAsync(map[string]any{"role": "assistant", "content": "a"})
	p2 := w.AppendAsync(map[string]any{"role": "user", "content": "b"})
	if p1.Wait() != nil || p2.Wait() != nil {
		t.Fatalf("appends: %v %v", p1.Wait(), p2.Wait())
	}
	es, _, err := ReadFile(path, Strict)
	if err != nil || len(es) != 3 || es[1].ID != p1.ID || es[2].ID != p2.ID || es[2].ParentID != p1.ID {
		t.Fatalf("read back %v (%v); writer said %s, %s", entryIDs(es), err, p1.ID, p2.ID)
	}
}
