package pi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/jsonl"
)

// pi's fork (SPEC §5, `export --format jsonl`): a new pi version 3 session
// file holding a path, as pi's createBranchedSession makes one. The
// archive writes it through the committed-log writer; the lines are made
// here (agent.Forker).

// ForkHeader is the header line of a fork of src (SPEC §5, pi's
// createBranchedSession): {"type":"session","version":3,"id":id,
// "timestamp":now,"cwd":src.Workspace,"parentSession":src.Path}, in the
// key order pi writes, the time in UTC with milliseconds.
func (Agent) ForkHeader(src kit.ForkSource, id string, now time.Time) []byte {
	return kit.MarshalOrdered("type", json.RawMessage(`"session"`), "version", json.RawMessage("3"), "id", kit.JSONString(id),
		"timestamp", kit.JSONString(now.UTC().Format("2006-01-02T15:04:05.000Z")), "cwd", kit.JSONString(src.Workspace),
		"parentSession", kit.JSONString(src.Path))
}

// ForkLine is the line of a fork of src for path[i] (the path root first),
// whose committed line is raw (path[i].Raw need not be set; path[i-1].ID
// is the parent of a version 1 entry). A version 3 line is raw itself,
// byte for byte; older entries are migrated as pi migrates a file it
// opens, since a version 3 reader would misread them otherwise: a version
// 1 entry gets "id" and "parentId" (its grove id L<line> and its
// parent's, SPEC §3.2), a compaction's firstKeptEntryIndex becomes
// firstKeptEntryId (none when it names no entry), and a context_edit's
// targetId becomes null (pi gives a version 1 file's entries random ids,
// so its edits name none; in the fork the grove ids would); a version 1 or 2
// message of role "hookMessage" gets role "custom" (SPEC §5). Every other
// member keeps its bytes and its place, so integers beyond 2^53 and
// escaped lone surrogates stay as they are. Errors: bad_line (naming
// src.Path) for a line that is not a JSON object and must be migrated.
func (Agent) ForkLine(src kit.ForkSource, path []jsonl.Entry, i int, raw []byte) ([]byte, error) {
	e := path[i]
	e.Raw = raw
	line := e.Raw
	if src.Version <= 1 {
		parent := json.RawMessage("null")
		if i > 0 {
			parent = kit.JSONString(path[i-1].ID)
		}
		line = migrateV1(e, parent)
	}
	// pi migrates version 1 to 2, then 2 to 3: a v1 file gets both.
	if line != nil && src.Version <= 2 && e.Type == "message" && e.Role == "hookMessage" {
		line = editMember(line, "message", func(m json.RawMessage) json.RawMessage {
			return editMember(m, "role", func(json.RawMessage) json.RawMessage { return json.RawMessage(`"custom"`) })
		})
	}
	if line == nil {
		return nil, errs.New(errs.CodeBadLine, "the line is not a JSON object and cannot be migrated").In(src.Path).At(e.Line, e.Offset)
	}
	return line, nil
}

// ForkLabels are the label entries that make a fork of path label its
// entries as labels (the source's, by target id) says: the label entries
// on the path alone may not give the labels the source gives its path's
// entries (one set or cleared on another branch), so one per entry whose
// label the path's own label entries leave different, chained after the
// path's last entry, as pi's createBranchedSession writes the labels of a
// fork after it; each gets a fresh 8-hex id. path needs Raw for its label
// entries only.
func (Agent) ForkLabels(path []jsonl.Entry, labels map[string]string, now time.Time) [][]byte {
	got := map[string]string{}
	ids := map[string]bool{}
	for _, e := range path {
		ids[e.ID] = true
		if e.Type != "label" {
			continue
		}
		var l struct {
			TargetID string `json:"targetId"`
			Label    string `json:"label"`
		}
		_ = json.Unmarshal(e.Raw, &l)
		if l.TargetID != "" {
			got[l.TargetID] = l.Label // "" clears (pi's rule)
		}
	}
	var out [][]byte
	parent := ""
	if len(path) > 0 {
		parent = path[len(path)-1].ID
	}
	ts := kit.JSONString(now.UTC().Format("2006-01-02T15:04:05.000Z"))
	for _, e := range path {
		if e.Type == "label" || got[e.ID] == labels[e.ID] {
			continue
		}
		fresh := newEntryID(ids)
		kv := []any{"type", json.RawMessage(`"label"`), "id", kit.JSONString(fresh), "parentId", kit.JSONString(parent),
			"timestamp", ts, "targetId", kit.JSONString(e.ID)}
		if l := labels[e.ID]; l != "" {
			kv = append(kv, "label", kit.JSONString(l))
		}
		out = append(out, kit.MarshalOrdered(kv...))
		got[e.ID] = labels[e.ID]
		parent = fresh
	}
	return out
}

// newEntryID is a random 8-hex-digit id not in used (pi's generateId),
// which it then holds.
func newEntryID(used map[string]bool) string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if !used[id] {
			used[id] = true
			return id
		}
	}
}

// migrateV1 is pi's version 1 → 2 migration of one entry: "id" and
// "parentId" appended, a compaction's firstKeptEntryIndex replaced by the
// firstKeptEntryId the reader resolved (SPEC §3.2; dropped when it names no
// entry), a context_edit's targetId null (it names no entry of pi's
// migration). It returns nil when the line is not a JSON object.
func migrateV1(e jsonl.Entry, parent json.RawMessage) json.RawMessage {
	members, ok := objectMembers(e.Raw)
	if !ok {
		return nil
	}
	var kv []any
	for _, m := range members {
		if e.Type == "compaction" && m.key == "firstKeptEntryIndex" {
			continue
		}
		if e.Type == "context_edit" && m.key == "targetId" {
			m.value = json.RawMessage("null")
		}
		kv = append(kv, m.key, m.value)
	}
	kv = append(kv, "id", kit.JSONString(e.ID), "parentId", parent)
	if e.Type == "compaction" && e.FirstKept != "" {
		kv = append(kv, "firstKeptEntryId", kit.JSONString(e.FirstKept))
	}
	return kit.MarshalOrdered(kv...)
}

// editMember returns the JSON object raw with the value of key replaced by
// edit(value), every other member kept; nil when raw is not an object.
func editMember(raw json.RawMessage, key string, edit func(json.RawMessage) json.RawMessage) json.RawMessage {
	members, ok := objectMembers(raw)
	if !ok {
		return nil
	}
	var kv []any
	for _, m := range members {
		v := m.value
		if m.key == key {
			v = edit(v)
		}
		kv = append(kv, m.key, v)
	}
	return kit.MarshalOrdered(kv...)
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists the members of the JSON object raw in their order
// (a key given twice twice), each value byte for byte as a sub-slice of raw
// (jsonl.Members); false when raw is not one valid JSON object.
func objectMembers(raw json.RawMessage) ([]member, bool) {
	var out []member
	ok := jsonl.Members(raw, func(k string, v []byte) bool {
		out = append(out, member{k, v})
		return true
	})
	return out, ok
}
