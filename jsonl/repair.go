package jsonl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/grove-sessions/grove/errs"
)

// RepairPlan is what Repair does, or would do with dryRun (SPEC §8 `repair`).
type RepairPlan struct {
	Path         string `json:"-"`
	TruncateAt   int64  `json:"truncated_at"`  // the committed prefix's length in bytes: the offset of the tail
	RemovedBytes int64  `json:"removed_bytes"` // the tail's length in bytes
	Backup       string `json:"backup"`        // the file holding the removed bytes (the tail), written first
	DryRun       bool   `json:"dry_run,omitempty"`
}

// repairFile is the I/O boundary of Repair: the backup it writes and the
// session file it truncates (*os.File in grove).
type repairFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
}

// wrapRepair, when set (by tests), wraps each file Repair writes: role is
// "backup" or "session".
var wrapRepair func(role string, f repairFile) repairFile

func repairIO(role string, f *os.File) repairFile {
	if wrapRepair != nil {
		return wrapRepair(role, f)
	}
	return f
}

// Repair is the only code in grove that changes bytes already in a session
// file, and only when the user runs `grove repair` (SPEC §2.7). For a file
// whose last bytes are an unterminated tail (SPEC §2.5) it copies the tail
// — the bytes it removes, and only those, so that it needs as much room as
// the tail on a full disk — to a backup beside it, flushes the copy and its
// directory to disk, then truncates the file to its committed prefix and
// flushes that: a crash at any point loses no byte. With dryRun it only
// returns the plan.
//
// Errors (*errs.Error): nothing_to_repair when the file has no unterminated tail
// (a tail of whitespace only is none); locked when a writer holds the file;
// disk_full when the backup finds no room (ENOSPC, EDQUOT) and io_error
// when it cannot be written or flushed otherwise, the file then untouched
// and no backup left; io_error. The backup is never overwritten: its name
// carries the time.
func Repair(path string, dryRun bool) (*RepairPlan, error) {
	f, _, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file must be writable before anything is copied: a repair that
	// cannot truncate must leave nothing behind.
	rw, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot open the file for writing: "+osReason(err)).In(path)
	}
	defer rw.Close()
	// Hold the writer lock from the first look to the truncate, so that no
	// grove writer appends in between.
	if err := lockWriter(f, path, "repair would race it"); err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "stat session file: "+osReason(err)).In(path)
	}
	size := fi.Size()
	committed, blank, err := findTail(f, 0, size)
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "read session file: "+osReason(err)).In(path)
	}
	if committed == size || blank {
		return nil, errs.New(errs.CodeNothingToRepair, "the file has no unterminated tail; repair only ever removes a torn last line").In(path).WithHint("`grove recover FILE` reports bad lines, which repair never touches")
	}
	plan := &RepairPlan{Path: path, TruncateAt: committed, RemovedBytes: size - committed, DryRun: dryRun,
		Backup: fmt.Sprintf("%s.%s.bak", path, time.Now().UTC().Format("20060102T150405.000000000Z"))}
	if dryRun {
		return plan, nil
	}
	if err := copyTail(f, committed, size, plan.Backup); err != nil {
		os.Remove(plan.Backup)
		code := errs.CodeIO
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
			code = errs.CodeDiskFull
		}
		return nil, errs.Wrap(code, err, fmt.Sprintf("cannot write the backup of the tail (%d bytes), so nothing was changed: %s", size-committed, osReason(err))).In(plan.Backup)
	}
	if err := syncDir(filepath.Dir(plan.Backup)); err != nil {
		os.Remove(plan.Backup)
		return nil, errs.Wrap(errs.CodeIO, err, "cannot flush the backup's directory, so nothing was changed: "+osReason(err)).In(plan.Backup)
	}
	// A process that ignores the lock may have written while the backup
	// was made; then the tail is no longer what was planned.
	if fi, err := f.Stat(); err != nil || fi.Size() != size {
		return nil, errs.Wrap(errs.CodeIO, err, "the file changed while its tail was being backed up (another process wrote to it); nothing was truncated").In(path).At(0, committed).WithHint("run `grove repair` again when nothing writes to the file; the backup " + plan.Backup + " can be deleted")
	}
	sf := repairIO("session", rw)
	err = sf.Truncate(committed)
	if err == nil {
		err = sf.Sync()
	}
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot truncate the file (the backup "+plan.Backup+" holds its tail): "+osReason(err)).In(path).At(0, committed)
	}
	return plan, nil
}

// copyTail copies the bytes [from, to) of f to a new file dst (mode 0600)
// and flushes it.
func copyTail(f *os.File, from, to int64, dst string) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w := repairIO("backup", out)
	if _, err := io.Copy(w, io.NewSectionReader(f, from, to-from)); err != nil {
		out.Close()
		return err
	}
	if err := w.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
