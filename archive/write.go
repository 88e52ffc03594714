package archive

import (
	"context"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// IsCompact reports whether the JSON text raw has no whitespace outside
// its strings (json.Compact would leave it as it is). It does not validate.
func IsCompact(raw []byte) bool { return jsonl.IsCompact(raw) }

// RepairPlan is what Repair does, or would do with dryRun (SPEC §2.7, §8
// `repair`): offsets and lengths in bytes.
type RepairPlan struct {
	Path         string `json:"-"`
	TruncateAt   int64  `json:"truncated_at"`  // the committed prefix's length: the offset of the tail
	RemovedBytes int64  `json:"removed_bytes"` // the tail's length
	Backup       string `json:"backup"`        // the file holding the removed bytes (the tail), written first
	DryRun       bool   `json:"dry_run,omitempty"`
}

// Repair truncates the unterminated tail of the session file at path after
// copying the tail — the bytes it removes, only those — to a backup beside
// it and flushing it (SPEC §2.7, §8 `repair`); with dryRun it only says
// what it would do. Another agent's file is never repaired (SPEC §5).
// Errors: wrong_dialect for a Claude Code or Codex file,
// unsupported_compression for a compressed rollout, nothing_to_repair,
// locked, disk_full (no room for the backup: nothing changed), io_error.
func Repair(ctx context.Context, path string, dryRun bool) (*RepairPlan, error) {
	if err := checkWritable(ctx, path, "repair", "grove repairs pi, plain and messages files only; it reads this file up to its torn last line as it is (grove recover FILE says where that is)"); err != nil {
		return nil, err
	}
	p, err := jsonl.Repair(path, dryRun)
	if err != nil {
		return nil, err
	}
	return &RepairPlan{Path: p.Path, TruncateAt: p.TruncateAt, RemovedBytes: p.RemovedBytes, Backup: p.Backup, DryRun: p.DryRun}, nil
}

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
// strict the first bad line or reused id is the error. A compressed
// rollout, whose bytes are zstd's and no lines, is unsupported_compression.
func Recover(path string, strict bool) (*Recovery, error) {
	if IsCompressed(path) {
		return nil, compressedError(path)
	}
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
