package jsonl

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// decodedMembers is what encoding/json's token stream gives for the
// members of the JSON object raw (keys decoded, values as json.RawMessage),
// and whether raw is one valid JSON object: the reference Members is held
// to, the way transcripts and forks walked objects before they shared it.
func decodedMembers(raw []byte) (keys []string, vals [][]byte, ok bool) {
	if !json.Valid(raw) {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		k, isKey := t.(string)
		var v json.RawMessage
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, nil, false
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, false
	}
	return keys, vals, true
}

// FuzzMembers holds Members to encoding/json on any input: the same
// answer to "one valid object?", the same keys in the same order (a key
// given twice twice), each value the same bytes, and, for an array,
// Elements likewise.
func FuzzMembers(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{` {"a": [1, {"b":"x"}] ,"\u0063":"é\"","a":null} `, `{"a":1}x`, `{"a":1`, "{\"a\":\"\xff\"}", `{"\ud800":"\udc00"}`, `[ 1 , "a" ,{"x":[]} ]`, `{"a" : 1e3 , "b":-0.5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		wantKeys, wantVals, wantOK := decodedMembers(raw)
		var keys []string
		var vals [][]byte
		ok := Members(raw, func(k string, v []byte) bool {
			keys, vals = append(keys, k), append(vals, v)
			return true
		})
		if ok != wantOK {
			t.Fatalf("Members(%q) = %v, encoding/json says %v", raw, ok, wantOK)
		}
		if len(keys) != len(wantKeys) {
			t.Fatalf("Members(%q) keys = %q, want %q", raw, keys, wantKeys)
		}
		for i := range keys {
			if keys[i] != wantKeys[i] || !bytes.Equal(vals[i], wantVals[i]) {
				t.Fatalf("Members(%q) member %d = %q: %q, want %q: %q", raw, i, keys[i], vals[i], wantKeys[i], wantVals[i])
			}
		}
		var want [][]byte
		wantOK = json.Valid(raw)
		if wantOK {
			dec := json.NewDecoder(bytes.NewReader(raw))
			t0, _ := dec.Token()
			wantOK = t0 == json.Delim('[')
			for wantOK && dec.More() {
				var v json.RawMessage
				if dec.Decode(&v) != nil {
					t.Fatalf("decoding an element of valid %q failed", raw)
				}
				want = append(want, v)
			}
		}
		var got [][]byte
		if ok := Elements(raw, func(e []byte) { got = append(got, e) }); ok != wantOK || len(got) != len(want) {
			t.Fatalf("Elements(%q) = %q, %v; want %q, %v", raw, got, ok, want, wantOK)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("Elements(%q) element %d = %q, want %q", raw, i, got[i], want[i])
			}
		}
	})
}
