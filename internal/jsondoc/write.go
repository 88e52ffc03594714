package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/iox"
)

// Write writes v as one compact JSON document and a newline. HTML
// characters are not escaped and nothing is indented, so raw message
// bodies come out byte for byte as they were stored.
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Time renders Unix milliseconds as an RFC 3339 time in UTC with
// milliseconds (SPEC §8), or nil (JSON null) when unknown.
func Time(ms *int64) any {
	if ms == nil {
		return nil
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// rawListType is the type WriteStream streams element by element.
var rawListType = reflect.TypeOf([]json.RawMessage(nil))

// WriteStream writes the struct v as Write does, byte for byte, but a
// []json.RawMessage field goes out one element at a time instead of the
// whole document being built in memory first: `messages` and `context` of
// a path holding a 50 MB image line then need that line once, not three
// times over (SPEC §2.8). Other fields are encoded as Write encodes them;
// the json tag's name and omitempty are honoured.
func WriteStream(w io.Writer, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return Write(w, v)
	}
	ew := &iox.StickyWriter{W: w}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(x any) error {
		buf.Reset()
		if err := enc.Encode(x); err != nil {
			return err
		}
		ew.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	}
	ew.WriteString("{")
	first := true
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fv := rv.Field(i)
		if strings.Contains(","+opts+",", ",omitempty,") && emptyJSON(fv) {
			continue
		}
		if !first {
			ew.WriteString(",")
		}
		first = false
		if err := encode(name); err != nil {
			return err
		}
		ew.WriteString(":")
		if sf.Type != rawListType || fv.IsNil() {
			if err := encode(fv.Interface()); err != nil {
				return err
			}
			continue
		}
		ew.WriteString("[")
		for j, raw := range fv.Interface().([]json.RawMessage) {
			if j > 0 {
				ew.WriteString(",")
			}
			if err := writeCompact(ew, raw, &buf); err != nil {
				return err
			}
		}
		ew.WriteString("]")
	}
	ew.WriteString("}\n")
	return ew.Err
}

// Compact is raw as Write writes a json.RawMessage element (writeCompact):
// raw itself when it is compact already.
func Compact(raw json.RawMessage) ([]byte, error) {
	if len(raw) > 0 && archive.IsCompact(raw) {
		return raw, nil
	}
	var b, buf bytes.Buffer
	err := writeCompact(&b, raw, &buf)
	return b.Bytes(), err
}

// writeCompact writes raw as encoding/json writes a json.RawMessage:
// compact, HTML characters as they are; null for an empty one. A line
// already compact (every committed line grove reads back is one line) is
// written as it is, without a copy.
func writeCompact(w io.Writer, raw json.RawMessage, buf *bytes.Buffer) error {
	if len(raw) == 0 {
		_, err := io.WriteString(w, "null")
		return err
	}
	if archive.IsCompact(raw) {
		_, err := w.Write(raw)
		return err
	}
	buf.Reset()
	if err := json.Compact(buf, raw); err != nil {
		return &json.MarshalerError{Type: reflect.TypeOf(raw), Err: err}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// emptyJSON is encoding/json's omitempty rule.
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// Member is one member of a document as Split gives it: its key, and its
// value as Write writes it (Value), or for a list Split was asked to
// split, each element as Write writes it (Elems, never nil; Null when the
// list is nil, which Write writes as null).
type Member struct {
	Key   string
	Value []byte
	Elems [][]byte
	Null  bool
}

// Split is the struct document v (or a pointer to it) as its members, in
// the order Write writes them, the members named in lists split into
// their elements: Write's document is "{", each member's quoted key, ":"
// and value (a split one "[", its elements joined by ",", and "]"; a nil
// one "null"), joined by ",", then "}". A member named in lists must be a
// slice. It is for cutting a document into pages (grove mcp) without
// encoding and parsing it whole.
func Split(v any, lists ...string) ([]Member, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("jsondoc.Split: %T is no struct", v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(x any) ([]byte, error) {
		buf.Reset()
		if err := enc.Encode(x); err != nil {
			return nil, err
		}
		return bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
	}
	var out []Member
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fv := rv.Field(i)
		if strings.Contains(","+opts+",", ",omitempty,") && emptyJSON(fv) {
			continue
		}
		m := Member{Key: name}
		if !slices.Contains(lists, name) {
			var err error
			if m.Value, err = encode(fv.Interface()); err != nil {
				return nil, err
			}
			out = append(out, m)
			continue
		}
		if fv.Kind() != reflect.Slice {
			return nil, fmt.Errorf("jsondoc.Split: member %s of %T is no list", name, v)
		}
		m.Elems, m.Null = make([][]byte, fv.Len()), fv.IsNil()
		for j := range fv.Len() {
			var err error
			if raw, ok := fv.Index(j).Interface().(json.RawMessage); ok {
				m.Elems[j], err = Compact(raw)
			} else {
				m.Elems[j], err = encode(fv.Index(j).Interface())
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, m)
	}
	return out, nil
}
