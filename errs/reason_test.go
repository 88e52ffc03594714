package errs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/grove-sessions/grove/errs"
)

func TestReason(t *testing.T) {
	_, openErr := os.Open(filepath.Join(t.TempDir(), "missing.jsonl"))
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"open", openErr, "no such file or directory"},
		{"wrapped", fmt.Errorf("read: %w", openErr), "no such file or directory"},
		{"made", &fs.PathError{Op: "write", Path: "/x/y", Err: errors.New("no space left on device")}, "no space left on device"},
		{"plain", errors.New("something else"), "something else"},
	} {
		if got := errs.Reason(tc.err); got != tc.want {
			t.Errorf("Reason(%s: %v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}
