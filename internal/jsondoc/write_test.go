package jsondoc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// joinMembers writes ms as Split says Write writes them.
func joinMembers(ms []Member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.Key) + ":")
		if m.Elems == nil {
			b.Write(m.Value)
			continue
		}
		if m.Null {
			b.WriteString("null")
			continue
		}
		b.WriteByte('[')
		b.Write(bytes.Join(m.Elems, []byte(",")))
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Split's members, joined again, are the bytes Write and WriteStream
// write, whatever the document holds: raw messages not compact, HTML
// characters, empty and nil lists, members left out by omitempty.
func TestSplit_JoinsToWrite(t *testing.T) {
	pending := 3
	docs := []struct {
		v     any
		lists []string
	}{
		{&Messages{Session: "s<1>", Leaf: "e&2", Messages: []json.RawMessage{json.RawMessage(`{"role":"user","content":"<b>a & b</b>"}`), json.RawMessage("{ \"spaced\" : [1, 2] }"), nil}}, []string{"messages"}},
		{&Messages{Session: "s", Leaf: "e", Messages: []json.RawMessage{}}, []string{"messages"}},
		{&Context{Session: "s", Leaf: "e", Messages: []json.RawMessage{json.RawMessage(`{"a":1}`)}, KeptEntryIDs: []string{"e<1>"}}, []string{"messages", "keptEntryIds"}},
		{&Context{Session: "s", Leaf: "e", ThinkingLevel: json.RawMessage(`"high"`), Model: &archive.Model{}}, []string{"messages", "keptEntryIds"}},
		{&Search{Hits: []Hit{{Session: "s", ID: "e", Snippet: "[[a]] <b>", AlsoIn: []string{}, Open: map[string]string{"path": "grove path s e"}}}, TextPending: &pending, Total: 1, TotalExact: true}, []string{"hits"}},
		{&Search{Hits: []Hit{}, Total: 0}, []string{"hits"}},
		{&Sessions{Sessions: []Session{{ID: "a", Diagnostics: []Diagnostic{{Code: "bad_line", Lines: []int{1, 2}}}}}}, []string{"sessions"}},
		{&Path{Session: "s", Leaf: "e", Path: []string{"r", "e"}}, []string{"path"}},
		{&Leaves{Leaves: []Leaf{{Session: "s", ID: "e", Stale: true}}}, []string{"leaves"}},
	}
	for i, d := range docs {
		ms, err := Split(d.v, d.lists...)
		if err != nil {
			t.Fatalf("doc %d: Split: %v", i, err)
		}
		var w, ws bytes.Buffer
		if err := Write(&w, d.v); err != nil {
			t.Fatal(err)
		}
		if err := WriteStream(&ws, d.v); err != nil {
			t.Fatal(err)
		}
		got := string(joinMembers(ms)) + "\n"
		if got != w.String() || got != ws.String() {
			t.Errorf("doc %d: Split joined\n %s\nWrite\n %sWriteStream\n %s", i, got, w.String(), ws.String())
		}
	}
	if _, err := Split(&Path{}, "session"); err == nil {
		t.Errorf("Split of a member that is no list: no error")
	}
}
