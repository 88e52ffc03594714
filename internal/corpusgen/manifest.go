package corpusgen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
)

// Manifest describes a generated corpus: every file written, in a fixed
// order (the big session first, then the others in the order they were
// planned). Generate writes it as dir/manifest.json; like the sessions it
// depends only on the options.
type Manifest struct {
	// Generator is the Version of the generator that wrote the corpus: a
	// corpus from another version has other bytes for the same options.
	Generator  int      `json:"generator"`
	Options    Options  `json:"options"`
	Files      []File   `json:"files"`
	Bytes      int64    `json:"bytes"`   // all session files, manifest.json excluded
	Entries    int64    `json:"entries"` // committed entries of all files
	Workspaces []string `json:"workspaces"`
	Markers    []Marker `json:"markers"` // corpus-wide counts of the fixed marker words
}

// Version numbers the generator's output: raise it with every change that
// changes the bytes written for some options, so that a corpus kept for
// reuse (grove-bench) is written again.
const Version = 4

// File is one session file of a Manifest.
type File struct {
	Path    string `json:"path"`    // relative to the corpus directory, '/'-separated
	Dialect string `json:"dialect"` // "pi", "plain", "claude", "codex" or "messages" (SPEC §3)
	Session string `json:"session"` // session id: the pi or codex header id, else the file name without .jsonl
	// Workspace is the cwd (SPEC §3.3–3.5); for a messages log the folder
	// that holds it, relative to the corpus directory, '/'-separated
	// (grove reports it as an absolute path, SPEC §3.6).
	Workspace string `json:"workspace"`
	Bytes     int64  `json:"bytes"`   // file size
	Lines     int    `json:"lines"`   // physical lines, header, bad line and torn tail included
	Entries   int    `json:"entries"` // committed entries: header, metadata lines, bad line and torn tail excluded
	// Metadata counts the committed lines that are neither the header nor
	// entries: Claude's permission-mode, file-history-snapshot,
	// custom-title and last-prompt lines (SPEC §3.4). 0 in other dialects.
	Metadata int `json:"metadata,omitempty"`
	// Roots, Leaves and BranchPoints are what a reader must find in the
	// entries' tree (ids and parents as the dialect gives them): entries
	// with no parent (the one whose parent is missing is not counted),
	// entries with no child, entries with two or more children.
	Roots        int `json:"roots"`
	Leaves       int `json:"leaves"`
	BranchPoints int `json:"branch_points"`
	// ActiveLeaf is the id of the session's active leaf: the last entry
	// (pi, plain, codex, messages), the last non-sidechain leaf (claude);
	// "" for a file with no entry. Ids are as the reader gives them:
	// 8 hex digits (pi, plain), a UUID (claude), L<line> (codex, messages).
	ActiveLeaf string `json:"active_leaf"`
	// Subagent marks a Claude sub-agent file, a session of its own whose
	// parent_session is ParentSession (SPEC §3.4); Parent is then the
	// main session's Path. Its agent-<id>.meta.json beside it is not
	// listed here and not counted in Bytes.
	Subagent      bool   `json:"subagent,omitempty"`
	ParentSession string `json:"parent_session,omitempty"`
	Big           bool   `json:"big,omitempty"`
	Forked        bool   `json:"forked"`
	Parent        string `json:"parent,omitempty"`      // the parent's Path when Forked (also the header's parentSession) or Subagent
	Prefix        int    `json:"fork_prefix,omitempty"` // entries copied byte for byte from the parent, root first
	ForkEntry     string `json:"fork_entry,omitempty"`  // the parent entry the copied path ends at
	Damage        string `json:"damage"`                // "", "torn_tail", "bad_line" or "missing_parent"
	// DamageLine is the physical line (1-based) of the damage: the torn
	// tail, the bad line, or the entry whose parent is missing.
	DamageLine int    `json:"damage_line,omitempty"`
	Images     int    `json:"images"`
	Name       string `json:"name,omitempty"` // the last session name given (session_info, plain metadata "name", claude custom-title)
	// Markers counts the committed entries holding each marker word, in
	// the order of MarkerWords.
	Markers [nMarkers]int `json:"markers"`
}

// Marker is how many committed entries of the corpus hold Word.
type Marker struct {
	Word    string `json:"word"`
	Every   int    `json:"every"` // the intended rate: one entry in Every
	Entries int    `json:"entries"`
}

// write stores m as dir/manifest.json, indented, with a final LF.
func (m *Manifest) write(dir string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), buf.Bytes(), 0o644)
}

// ReadManifest reads dir/manifest.json as Generate wrote it.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
