package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

// tornFile writes a session file of committed lines and a torn last line
// into a new directory and returns its path, its bytes and the length of
// its committed prefix.
func tornFile(t *testing.T) (string, []byte, int) {
	t.Helper()
	var b bytes.Buffer
	for i := range 50 {
		fmt.Fprintf(&b, `{"id":"e%d","parentId":%s,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"line %d"}}`+"\n",
			i, map[bool]string{true: "null", false: fmt.Sprintf(`"e%d"`, i-1)}[i == 0], i)
	}
	committed := b.Len()
	b.WriteString(`{"id":"e50","parentId":"e49","timestamp":1767225600000,"type":"mess`)
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes(), committed
}

// TestRepair_BackupHoldsTheTail: repair writes the bytes it removes, and
// only those, to the backup (SPEC §8 `repair`), so that it needs no more
// room than the tail; the file keeps its committed prefix.
func TestRepair_BackupHoldsTheTail(t *testing.T) {
	path, data, committed := tornFile(t)
	plan, err := Repair(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if plan.TruncateAt != int64(committed) || plan.RemovedBytes != int64(len(data)-committed) {
		t.Fatalf("Repair = truncated at %d removing %d, want %d and %d", plan.TruncateAt, plan.RemovedBytes, committed, len(data)-committed)
	}
	if got, _ := os.ReadFile(plan.Backup); !bytes.Equal(got, data[committed:]) {
		t.Fatalf("backup %s holds %q, want the tail %q", plan.Backup, got, data[committed:])
	}
	if fi, err := os.Stat(plan.Backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data[:committed]) {
		t.Fatalf("the file after repair is %d bytes, want its committed prefix of %d", len(got), committed)
	}
}

// faultyRepairFile records what Repair does to its files, in order, and
// fails one operation.
type faultyRepairFile struct {
	repairFile
	role string
	log  *[]string
	fail string // "backup write", "backup sync", "session truncate", "session sync"
	err  error
}

func (f *faultyRepairFile) do(op string) error {
	*f.log = append(*f.log, f.role+" "+op)
	if f.fail == f.role+" "+op {
		return f.err
	}
	return nil
}

func (f *faultyRepairFile) Write(p []byte) (int, error) {
	if err := f.do("write"); err != nil {
		return 0, err
	}
	return f.repairFile.Write(p)
}

func (f *faultyRepairFile) Sync() error {
	if err := f.do("sync"); err != nil {
		return err
	}
	return f.repairFile.Sync()
}

func (f *faultyRepairFile) Truncate(size int64) error {
	if err := f.do("truncate"); err != nil {
		return err
	}
	return f.repairFile.Truncate(size)
}

// TestRepair_Faults: faults at the I/O boundary of repair that a full
// tmpfs cannot make (a quota, an I/O error, a failing flush). The backup
// is written and flushed before the file is truncated, so a crash in
// between loses nothing; a backup that cannot be written or flushed
// refuses the repair (disk_full for no room or quota, io_error else),
// leaving the file untouched and no backup; a truncate that fails names
// the backup holding the tail.
func TestRepair_Faults(t *testing.T) {
	t.Cleanup(func() { wrapRepair = nil })
	for _, tc := range []struct {
		fail string
		err  error
		code errs.Code
	}{
		{"", nil, ""},
		{"backup write", syscall.ENOSPC, errs.CodeDiskFull},
		{"backup write", syscall.EDQUOT, errs.CodeDiskFull},
		{"backup write", syscall.EIO, errs.CodeIO},
		{"backup sync", syscall.EIO, errs.CodeIO},
		{"backup sync", syscall.ENOSPC, errs.CodeDiskFull},
		{"session truncate", syscall.EIO, errs.CodeIO},
		{"session sync", syscall.EIO, errs.CodeIO},
	} {
		name := "no fault"
		if tc.fail != "" {
			name = tc.fail + " " + tc.err.Error()
		}
		t.Run(name, func(t *testing.T) {
			path, data, committed := tornFile(t)
			var log []string
			wrapRepair = func(role string, f repairFile) repairFile {
				return &faultyRepairFile{repairFile: f, role: role, log: &log, fail: tc.fail, err: tc.err}
			}
			plan, err := Repair(path, false)
			wrapRepair = nil
			backups, _ := filepath.Glob(path + ".*.bak")
			after, _ := os.ReadFile(path)
			switch {
			case tc.fail == "":
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"backup write", "backup sync", "session truncate", "session sync"}
				if fmt.Sprint(log) != fmt.Sprint(want) {
					t.Fatalf("repair did %v, want %v: the backup flushed before the truncate", log, want)
				}
				if got, _ := os.ReadFile(plan.Backup); !bytes.Equal(got, data[committed:]) {
					t.Fatalf("backup holds %q, want the tail", got)
				}
			case tc.fail == "session truncate" || tc.fail == "session sync":
				if errs.CodeOf(err) != tc.code || len(backups) != 1 {
					t.Fatalf("Repair = %v with backups %v; want %s naming the one backup", err, backups, tc.code)
				}
				if got, _ := os.ReadFile(backups[0]); !bytes.Equal(got, data[committed:]) {
					t.Fatalf("backup holds %q, want the tail", got)
				}
			default:
				if errs.CodeOf(err) != tc.code || !errors.Is(err, tc.err) {
					t.Fatalf("Repair = %v (%s), want %s wrapping %v", err, errs.CodeOf(err), tc.code, tc.err)
				}
				if !bytes.Equal(after, data) || len(backups) != 0 {
					t.Fatalf("after a failed backup: file of %d bytes (was %d), backups %v; want it untouched and no backup", len(after), len(data), backups)
				}
				for _, op := range log {
					if op == "session truncate" {
						t.Fatalf("repair truncated the file after its backup failed: %v", log)
					}
				}
			}
		})
	}
}
