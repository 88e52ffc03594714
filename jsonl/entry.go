package jsonl

import (
	"encoding/json"
)

// Entry is one committed line that is a tree node (SPEC §1).
//
// ID and ParentID are the tree's edges; for a pi version 1 file they are the
// synthetic ids of SPEC §3.2 (L<line>, parent = the previous entry). Raw holds
// the committed line's bytes exactly as they are in the file, without the LF
// and without a leading BOM: nothing is decoded and re-encoded.
type Entry struct {
	ID        string
	ParentID  string // the parent's id; meaningless when Root
	Root      bool   // parentId was null
	Type      string // "message", "metadata", a pi entry type, or an unknown type kept as is
	Role      string // message.role for type "message", else ""
	Timestamp int64  // Unix milliseconds; 0 when HasTime is false
	HasTime   bool   // false when the timestamp was missing or unreadable (warning bad_timestamp)
	Line      int    // physical line number (§1)
	Offset    int64  // byte offset of Raw[0] in the file
	Length    int    // len(Raw) in bytes, as committed (Raw may be dropped by the reader)
	Raw       json.RawMessage

	// Pi fields the index needs without reading the line again.
	TargetID  string // label: the entry it labels; context_edit (pi 1.x): the entry it edits, "" in a version 1 file
	Label     string // label: the label; "" clears (pi's rule)
	Name      string // session_info: the session's name; "" when absent
	FirstKept string // compaction: firstKeptEntryId (v1: mapped from firstKeptEntryIndex, §3.2); "" when it has none, which keeps nothing before it

	// Metadata fields of the plain dialect.
	Key   string // metadata key
	Value string // metadata value when it is a JSON string, else ""

	// Claude Code fields (SPEC §3.4).
	Sidechain     bool   // isSidechain: true; never the active leaf while a main-chain leaf exists
	LogicalParent string // compact_boundary: logicalParentUuid, shown as "continues from", never joined
	Cwd           string // the line's cwd ("" when absent): the first one is the workspace

	// Copy is true for a Codex event_msg that repeats a response_item's
	// text (user_message, agent_message, agent_reasoning; SPEC §3.5,
	// codex_pair.go): it gets no search text of its own and is no message,
	// so a text is one hit and one message.
	Copy bool
}

// Clone returns a deep copy of e: changing the copy's Raw never changes e.
func (e Entry) Clone() Entry {
	if e.Raw != nil {
		e.Raw = append(json.RawMessage(nil), e.Raw...)
	}
	return e
}

// Header is a pi session header line (SPEC §3.2), {"type":"session",...}.
type Header struct {
	ID            string
	Version       int    // 1 when the header has no version
	Timestamp     int64  // Unix milliseconds; 0 when unreadable
	Cwd           string // the workspace (§3.3)
	ParentSession string // parentSession, or branchedFrom in older files
	Line          int
	Offset        int64
	Raw           json.RawMessage
}

// Field returns the raw JSON value of key in the JSON object raw, exactly as
// it is written there, or nil when raw is not an object or lacks the key.
// Message bodies read back by offset go through here (SPEC §4: kept
// byte-for-byte). The value is a sub-slice of raw, not a copy (§2.8); of a
// key given twice, the last is returned, as encoding/json does.
func Field(raw []byte, key string) json.RawMessage {
	var v json.RawMessage
	Members(raw, func(k string, value []byte) bool {
		if k == key {
			v = value
		}
		return true
	})
	return v
}
