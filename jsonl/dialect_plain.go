package jsonl

import (
	"encoding/json"
	"strconv"
)

// The plain dialect (SPEC §3.1): the committed log of the session-tree
// chapter, no header, every line an entry of type message or metadata.
// pi's rules are plain's (dialect_pi.go) but for its name.

type plainRules struct{ piRules }

func (plainRules) Dialect() Dialect { return Plain }

func (plainRules) read(p *parser, l Line, o object, typ string) error { return p.plainEntry(l, o) }

func (p *parser) plainEntry(l Line, o object) error {
	id, err := wantString(o, "id", "")
	if err == nil && id == "" {
		err = fieldErr("id", "is empty")
	}
	if err != nil {
		return p.bad(l, "%s", err)
	}
	e := Entry{ID: id}
	if e.ParentID, e.Root, err = parentOf(o); err != nil {
		return p.bad(l, "%s", err)
	}
	ts, err := want(o, "timestamp", "", 'n')
	if err != nil {
		return p.bad(l, "%s", err)
	}
	f, perr := strconv.ParseFloat(string(ts), 64)
	if perr != nil {
		return p.bad(l, "timestamp: not a finite number")
	}
	// Milliseconds beyond ±(2^53−1) cannot survive a round trip through a
	// JSON number (SPEC §5) and would overflow int64 when converted.
	if f > maxSafeInt || f < -maxSafeInt {
		return p.bad(l, "timestamp: %s is outside ±(2^53−1) milliseconds", ts)
	}
	e.Timestamp, e.HasTime = int64(f), true
	if e.Type, err = wantString(o, "type", ""); err != nil {
		return p.bad(l, "%s", err)
	}
	switch e.Type {
	case "message":
		if e.Role, err = checkPlainMessage(o["message"]); err != nil {
			return p.bad(l, "%s", err)
		}
	case "metadata":
		if e.Key, err = wantString(o, "key", ""); err == nil && e.Key == "" {
			err = fieldErr("key", "is empty")
		}
		if err == nil {
			v, ok := o["value"]
			if !ok {
				err = fieldErr("value", "missing")
			} else if jsonKind(v) == 's' {
				_ = json.Unmarshal(v, &e.Value)
			}
		}
		if err != nil {
			return p.bad(l, "%s", err)
		}
	default:
		return p.bad(l, "type: is %q, want \"message\" or \"metadata\" (plain dialect, no header)", e.Type)
	}
	return p.emit(l, e)
}

// parentOf reads parentId: a string, or null for a root.
func parentOf(o object) (string, bool, *schemaError) {
	v, ok := o["parentId"]
	switch k := jsonKind(v); {
	case !ok:
		return "", false, fieldErr("parentId", "missing, want a string or null")
	case k == 'z':
		return "", true, nil
	case k == 's':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false, fieldErr("parentId", "unreadable string")
		}
		return s, false, nil
	default:
		return "", false, fieldErr("parentId", "is %s, want a string or null", kindNames[k])
	}
}
