package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/grove-sessions/grove/errs"
)

// MarshalEntry validates an in-memory entry and serializes it as one
// compact JSON line (without the LF), so that what is written reads back
// unchanged (SPEC §5). v may be json.RawMessage or []byte holding JSON text,
// or a tree of JSON value types: nil, bool, string, float32/64, the integer
// types, json.Number, map[string]T and []T (pointers and interfaces to them
// are followed).
//
// It rejects, as an *errs.Error with Code invalid_entry whose ID names the field
// path (for example "message.content[0].arguments.path"): NaN and ±Inf;
// invalid UTF-8 in any string or key; cycles (found without recursion
// limits, by pointer identity); values of other Go types (structs,
// channels, functions, complex numbers, maps with non-string keys);
// integers beyond ±(2^53−1), which a JSON reader such as pi's would round.
// The dialect's required fields are checked by the Writer, which knows the
// file's dialect.
//
// The returned line never shares memory with v: JSON text given as bytes is
// copied, so the caller may reuse its buffer as soon as this returns.
func MarshalEntry(v any) ([]byte, error) {
	if raw, ok := rawJSON(v); ok {
		return compactRaw(raw)
	}
	c := valueChecker{seen: map[uintptr]bool{}}
	if err := c.check(reflect.ValueOf(v)); err != nil {
		return nil, invalidEntry(err.field, err.msg)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, invalidEntry("", "cannot serialize: "+err.Error())
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if field, why := roundTrip(line); why != "" {
		return nil, invalidEntry(field, why)
	}
	return line, nil
}

func invalidEntry(field, msg string) *errs.Error {
	text := msg
	if field != "" {
		text = field + ": " + msg
	}
	return errs.New(errs.CodeInvalidEntry, text).WithID(field)
}

func rawJSON(v any) ([]byte, bool) {
	switch r := v.(type) {
	case json.RawMessage:
		return r, true
	case []byte:
		return r, true
	}
	return nil, false
}

// compactRaw checks JSON text given as bytes: valid UTF-8, one JSON value,
// integers within ±(2^53−1); and removes the whitespace between tokens so it
// fits on one line. Strings and numbers are kept byte for byte. The result
// is always a new slice that shares no memory with raw: the caller may
// reuse raw as soon as this returns (SPEC §5), while the line waits in the
// writer's queue.
func compactRaw(raw []byte) ([]byte, error) {
	if !utf8.Valid(raw) {
		return nil, invalidEntry("", "invalid UTF-8")
	}
	if !validJSON(raw) {
		var x json.RawMessage
		return nil, invalidEntry("", "invalid JSON: "+fmt.Sprint(json.Unmarshal(raw, &x)))
	}
	var out []byte
	if IsCompact(raw) {
		out = bytes.Clone(raw)
	} else {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, invalidEntry("", "invalid JSON: "+err.Error())
		}
		out = buf.Bytes()
	}
	if field, why := roundTrip(out); why != "" {
		return nil, invalidEntry(field, why)
	}
	return out, nil
}

// valueChecker walks an in-memory value. Nesting is bounded by the value
// itself; cycles are caught by the pointers already on the walk.
type valueChecker struct {
	seen  map[uintptr]bool
	stack []string // the path to the value being checked: ".key" and "[i]" segments
}

// path renders the current field path, e.g. "message.content[0].arguments",
// or "(entry)" at the top. It is built only for an error, so a deeply
// nested value costs time linear in its size.
func (c *valueChecker) path() string {
	if p := strings.TrimPrefix(strings.Join(c.stack, ""), "."); p != "" {
		return p
	}
	return "(entry)"
}

func (c *valueChecker) check(v reflect.Value) *schemaError {
	at := func(msg string, args ...any) *schemaError {
		return fieldErr(c.path(), msg, args...)
	}
	if !v.IsValid() {
		return nil // nil interface: JSON null
	}
	if v.Type() == reflect.TypeOf(json.Number("")) {
		n := json.Number(v.String())
		if _, err := n.Float64(); err != nil || !validJSON([]byte(n)) {
			return at("json.Number %q is not a JSON number", v.String())
		}
		if msg := numberSurvives([]byte(n)); msg != "" {
			return at("%s", msg)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return c.check(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return c.container(v, func() *schemaError { return c.check(v.Elem()) })
	case reflect.Bool:
		return nil
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return at("invalid UTF-8 in a string")
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n > maxSafeInt || n < -maxSafeInt {
			return at("integer %d beyond ±(2^53−1)", n)
		}
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > maxSafeInt {
			return at("integer %d beyond 2^53−1", v.Uint())
		}
		return nil
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return at("%v is not a JSON number", f)
		}
		return nil
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return at("a map with %s keys; JSON object keys are strings", v.Type().Key())
		}
		if v.IsNil() {
			return nil
		}
		return c.container(v, func() *schemaError {
			iter := v.MapRange()
			for iter.Next() {
				k := iter.Key().String()
				if !utf8.ValidString(k) {
					return at("invalid UTF-8 in key %q", k)
				}
				c.stack = append(c.stack, "."+k)
				if err := c.check(iter.Value()); err != nil {
					return err
				}
				c.stack = c.stack[:len(c.stack)-1]
			}
			return nil
		})
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		walk := func() *schemaError {
			for i := 0; i < v.Len(); i++ {
				c.stack = append(c.stack, "["+strconv.Itoa(i)+"]")
				if err := c.check(v.Index(i)); err != nil {
					return err
				}
				c.stack = c.stack[:len(c.stack)-1]
			}
			return nil
		}
		if v.Kind() == reflect.Slice {
			return c.container(v, walk)
		}
		return walk()
	default:
		return at("a Go %s is not a JSON value (use map[string]any, []any, string, number, bool or nil)", v.Type())
	}
}

// container walks a value behind a pointer (map, slice, pointer) once per
// path: meeting it again while it is being walked is a cycle.
func (c *valueChecker) container(v reflect.Value, walk func() *schemaError) *schemaError {
	if v.Kind() == reflect.Slice && v.Len() == 0 {
		return walk()
	}
	ptr := v.Pointer() // a slice's first element, a map's or pointer's target
	if c.seen[ptr] {
		return fieldErr(c.path(), "a cycle: this value contains itself")
	}
	c.seen[ptr] = true
	err := walk()
	delete(c.seen, ptr)
	return err
}

// maxSafeInt is 2^53−1, the largest integer a JSON number holds exactly.
const maxSafeInt = 1<<53 - 1
