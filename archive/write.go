package archive

import (
	"io"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// Writer appends entries to one session file (SPEC §5): validated at call
// time, committed in call order, each append leaving the old file a byte
// prefix of the new one; one Writer per file across processes (an
// exclusive flock). See jsonl.Writer.
type Writer = jsonl.Writer

// Pending is one append issued with Writer.AppendAsync: Wait returns its
// error once it is committed or refused; ID is the entry's id ("" for a pi
// header line, which is no entry).
type Pending = jsonl.Pending

// OpenWriter opens (creating if needed) the session file at path for
// appending (SPEC §5). With fsync every append waits for fsync(2). A file
// appends cannot go to (an unterminated tail: needs_repair; pi version 1)
// opens, and Writer.Err says why. Errors: locked when another writer
// holds the file, io_error.
func OpenWriter(path string, fsync bool) (*Writer, error) {
	return jsonl.OpenWriter(path, jsonl.WriterOptions{Fsync: fsync})
}

// LineScanner splits a stream into physical lines (SPEC §2.1): Scan, then
// Line (Num 1-based, Bytes without the LF, Blank for a line of JSON
// whitespace), then Err.
type LineScanner = jsonl.Scanner

// NewLineScanner reads r from its current position, taken to be byte 0.
func NewLineScanner(r io.Reader) *LineScanner { return jsonl.NewScanner(r) }

// MarshalEntry checks an entry as the writer would (SPEC §5) and gives it
// as one compact JSON line, without its LF. Errors: invalid_entry.
func MarshalEntry(v any) ([]byte, error) { return jsonl.MarshalEntry(v) }

// IsCompact reports whether the JSON text raw has no whitespace outside
// its strings (json.Compact would leave it as it is). It does not validate.
func IsCompact(raw []byte) bool { return jsonl.IsCompact(raw) }

// RepairPlan is what Repair does, or would do with dryRun (SPEC §2.7, §8
// `repair`): offsets and lengths in bytes.
type RepairPlan = jsonl.RepairPlan

// Repair truncates the unterminated tail of the session file at path after
// copying the tail — the bytes it removes, only those — to a backup beside
// it and flushing it (SPEC §2.7, §8 `repair`); with dryRun it only says
// what it would do. Errors: nothing_to_repair, locked, disk_full (no room
// for the backup: nothing changed), io_error.
func Repair(path string, dryRun bool) (*RepairPlan, error) { return jsonl.Repair(path, dryRun) }

// Recovery is what `grove recover` reports of a session file (SPEC §2.6,
// §8): its dialect, committed lines and kept entries, its state, the
// warnings and the bad lines (with each duplicated id), in file order.
type Recovery struct {
	Dialect  Dialect
	Lines    int // committed lines, blank ones included
	Entries  int // entries kept
	State    State
	Warnings []*errs.Error
	Errors   []*errs.Error
}

// Recover reads the session file at path as `grove recover` reports it
// (jsonl.Recover): in salvage mode every bad line is in Errors; with
// strict the first bad line or reused id is the error.
func Recover(path string, strict bool) (*Recovery, error) {
	mode := jsonl.Salvage
	if strict {
		mode = jsonl.Strict
	}
	res, err := jsonl.Recover(path, mode)
	if err != nil {
		return nil, err
	}
	return &Recovery{Dialect: res.Dialect, Lines: res.Lines, Entries: res.Entries, State: res.State(),
		Warnings: res.Warnings, Errors: res.Errors}, nil
}
