package ingest

import (
	"errors"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// IndexSummary is the answer of `grove index` and `grove rebuild` (SPEC §8,
// plus the counts docs/indexing.md "Keeping the index current" describes).
type IndexSummary struct {
	Files     int `json:"files"`          // session files found below the roots and named, and those the index holds elsewhere that were read
	Indexed   int `json:"indexed"`        // files read and stored, whole or from their committed length
	Appended  int `json:"appended"`       // of those, files read only from their committed length (grown by appending)
	Unchanged int `json:"unchanged"`      // files skipped because size, mtime, device and inode match the index
	Damaged   int `json:"damaged"`        // files whose state is damaged or needs-repair
	Entries   int `json:"entries"`        // entries stored by this run
	Removed   int `json:"removed"`        // sessions dropped because their file is gone
	Gone      int `json:"gone,omitempty"` // sessions whose file is gone, kept (SPEC §11)
	// Forgotten counts the session files found but left out because
	// `grove forget` removed them and their committed bytes are unchanged
	// since (SPEC §11); they are not in Files. Left out of the JSON when 0.
	Forgotten int   `json:"forgotten,omitempty"`
	BytesRead int64 `json:"bytes_read"` // bytes of session files read
	// TextPending counts the sessions whose search text is not in the
	// index: a first index stopped (Ctrl-C) after its entry rows were in
	// but before their search text was (docs/indexing.md "The first
	// index"); the next `grove index` builds it. Left out of the JSON
	// when 0.
	TextPending int `json:"text_pending,omitempty"`
	// Failed lists the files, directories and roots that could not be read;
	// everything else was indexed. Never nil.
	Failed []Failure `json:"failed"`
	// Unsupported lists the files found that grove lists but cannot read
	// (a Codex *.jsonl.zst: code unsupported_compression, with a hint),
	// every run that finds them, whether read this run or unchanged; they
	// are no failure (SPEC §3.5). Never nil.
	Unsupported []Failure `json:"unsupported"`
	// DefaultRoots are the agents' default roots the run read, when no
	// root was named (SPEC §8 `index` row); set by the command, left out
	// of the JSON when empty.
	DefaultRoots []DefaultRoot `json:"default_roots,omitempty"`
}

// DefaultRoot is one agent's default session root (SPEC §8): the dialect
// of the files grove expects there and the directory.
type DefaultRoot struct {
	Dialect jsonl.Dialect `json:"dialect"`
	Path    string        `json:"path"`
}

// add adds o's counts and failures to s.
func (s *IndexSummary) add(o IndexSummary) {
	s.Files += o.Files
	s.Indexed += o.Indexed
	s.Appended += o.Appended
	s.Unchanged += o.Unchanged
	s.Damaged += o.Damaged
	s.Entries += o.Entries
	s.Removed += o.Removed
	s.Forgotten += o.Forgotten
	s.Gone += o.Gone
	s.BytesRead += o.BytesRead
	s.Failed = append(s.Failed, o.Failed...)
	s.Unsupported = append(s.Unsupported, o.Unsupported...)
}

// Failure is a file, directory or root that `grove index` could not read.
type Failure struct {
	Path    string    `json:"path"`
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"` // what to do about it, when there is something
}

func failureOf(path string, err error) Failure {
	var je *errs.Error
	if errors.As(err, &je) {
		msg := je.Message
		if msg == "" && je.Err != nil {
			msg = je.Err.Error()
		}
		return Failure{Path: path, Code: je.Code, Message: msg}
	}
	return Failure{Path: path, Code: errs.CodeIO, Message: errs.PathReason(err)}
}

// IndexOptions say what `grove index` reads.
type IndexOptions struct {
	Roots []string // directories searched recursively for *.jsonl
	// Files are single files, indexed whatever their name. One that is gone
	// but indexed leaves the index.
	Files []string
	Force bool // read every file whole, even those that look unchanged or appended to
	// Progress, when set, is called after each file read (not for
	// unchanged ones) and once before the first.
	Progress func(Progress)
	// Busy, when set, is called once if another grove holds the index's
	// lock, with what the lock file says of it; Index then waits for it.
	// When nil, Index does not wait: it fails with index_busy.
	Busy func(holder string)
	// whole is Rebuild's: the new index is kept only whole, so a full disk
	// ends the run at once, without indexing the batch's files one by one.
	whole bool
	// inline reads each file as it is stored, none ahead (prefetch.go):
	// the reference the tests compare the other ways with.
	inline bool
	// partial is Rebuild's over an index set aside as damaged: there is no
	// old index to keep, so what could be read is swapped in, and what
	// could not is in the summary's Failed.
	partial bool
}

// Progress is how far an Index run is. Only files that changed count.
type Progress struct {
	Files, FilesTotal int   // changed files read so far, and in all
	Bytes, BytesTotal int64 // bytes of them to read so far, and in all (whole files, or what was appended)
	Path              string
}

// FileStat is what the index remembers of a file to tell whether it
// changed: its size in bytes, its modification time in nanoseconds, and
// its identity Dev and Ino (FileID: device and inode numbers on Unix, the
// volume serial number and file index on Windows; 0 when not known).
type FileStat struct {
	Size, MtimeNs, Dev, Ino int64
	Regular                 bool
}

// SameStat reports whether st, a file's stat now, is the one the index
// row s was read from: the same size, mtime, device and inode (SPEC §6).
func SameStat(s *index.Session, st FileStat) bool {
	return s.FileSize == st.Size && s.FileMtimeNs == st.MtimeNs && s.FileDev == st.Dev && s.FileIno == st.Ino
}

// batchFiles and batchBytes bound what one write transaction of Index
// holds: files, and bytes read from them. Readers see each file's session
// wholly before or after, whatever the batch.
const (
	batchFiles = 256
	batchBytes = 16 << 20
)

// racy reports whether s was indexed so soon after its file's last change
// that its stat cannot be trusted (index.RacyWindowMs): the next refresh
// looks at the file's bytes too.
func racy(s *index.Session) bool {
	return s.IndexedAtMs-s.FileMtimeNs/1e6 < index.RacyWindowMs
}
