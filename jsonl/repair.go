package jsonl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/grove-sessions/grove/errs"
)

// RepairPlan is what Repair does, or would do with dryRun (SPEC §8 `repair`).
type RepairPlan struct {
	Path         string `json:"-"`
	TruncateAt   int64  `json:"truncated_at"`  // the committed prefix's length in bytes: the offset of the tail
	RemovedBytes int64  `json:"removed_bytes"` // the tail's length in bytes
	Backup       string `json:"backup"`        // the copy of the whole file made first
	DryRun       bool   `json:"dry_run,omitempty"`
}

// Repair is the only code in grove that changes bytes already in a session
// file, and only when the user runs `grove repair` (SPEC §2.7). For a file
// whose last bytes are an unterminated tail (SPEC §2.5) it copies the whole
// file to a backup beside it, flushes the copy to disk, then truncates the
// file to its committed prefix and flushes that. With dryRun it only
// returns the plan.
//
// Errors (*errs.Error): nothing_to_repair when the file has no unterminated tail
// (a tail of whitespace only is none); locked when a writer holds the file;
// io_error. The backup is never overwritten: its name carries the time.
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
	if err := copyFile(f, plan.Backup); err != nil {
		os.Remove(plan.Backup)
		return nil, errs.Wrap(errs.CodeIO, err, "cannot write the backup, so nothing was changed: "+osReason(err)).In(plan.Backup)
	}
	if err := syncDir(filepath.Dir(plan.Backup)); err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot flush the backup's directory, so nothing was changed: "+osReason(err)).In(plan.Backup)
	}
	// A process that ignores the lock may have written while the backup
	// was made; then the tail is no longer what was planned.
	if fi, err := f.Stat(); err != nil || fi.Size() != size {
		return nil, errs.Wrap(errs.CodeIO, err, "the file changed while it was being backed up (another process wrote to it); nothing was truncated").In(path).At(0, committed).WithHint("run `grove repair` again when nothing writes to the file; the backup " + plan.Backup + " can be deleted")
	}
	err = rw.Truncate(committed)
	if err == nil {
		err = rw.Sync()
	}
	if err != nil {
		return nil, errs.Wrap(errs.CodeIO, err, "cannot truncate the file (the backup "+plan.Backup+" holds all of it): "+osReason(err)).In(path).At(0, committed)
	}
	return plan, nil
}

// copyFile copies all of f to a new file dst (mode 0600) and flushes it.
func copyFile(f *os.File, dst string) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
