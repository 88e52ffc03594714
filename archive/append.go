package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/jsonl"
)

// AppendOutcome is what Append did with its input, line by line: the
// document `grove append --json` prints (SPEC §8 `append`).
type AppendOutcome struct {
	Appended    []string        `json:"appended"`              // the ids of the entries appended, in input order
	Failed      []AppendFailure `json:"failed"`                // the input lines that were not appended, in input order
	Header      bool            `json:"header,omitempty"`      // a pi header line was written (it is no entry)
	Interrupted bool            `json:"interrupted,omitempty"` // ctx ended: the input after the last line issued was not read
	InputError  string          `json:"stdin_error,omitempty"` // the input could not be read to its end
}

// AppendOptions are Append's choices.
type AppendOptions struct {
	// Fsync has each append wait for fsync(2) (jsonl.WriterOptions).
	Fsync bool
	// Wait is how long to wait for another writer (an agent, another
	// grove append) to let go of the file before failing with locked;
	// 0 fails at once. The file is tried again every 10 ms at first,
	// backing off to every 250 ms.
	Wait time.Duration
}

// openWaiting opens the committed-log writer of path, trying again while
// another writer holds the file, for up to opts.Wait or until ctx ends;
// then the error is locked, saying how long it waited.
func openWaiting(ctx context.Context, path string, opts AppendOptions) (*jsonl.Writer, error) {
	deadline := time.Now().Add(opts.Wait)
	delay := 10 * time.Millisecond
	for {
		w, err := jsonl.OpenWriter(path, jsonl.WriterOptions{Fsync: opts.Fsync})
		if err == nil || opts.Wait <= 0 || errs.CodeOf(err) != errs.CodeLocked {
			return w, err
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return nil, errs.Wrap(errs.CodeLocked, err, fmt.Sprintf("another writer held this session file for the %s grove waited", opts.Wait)).In(path).
				WithHint("wait longer (--wait), or find the writer: an agent still running in this session, or another grove append")
		}
		t := time.NewTimer(min(delay, left))
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		delay = min(2*delay, 250*time.Millisecond)
	}
}

// AppendFailure is one input line Append did not append: its physical
// line number in the input (1-based), and the error's code and message.
// The message of a disk_full carries its hint (what to free).
type AppendFailure struct {
	Line    int       `json:"line"`
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
}

// Whole reports whether every line of the input was read and appended.
func (o *AppendOutcome) Whole() bool {
	return len(o.Failed) == 0 && !o.Interrupted && o.InputError == ""
}

// Append appends the entries that in holds, one JSON document per
// physical line, to the session file at path through the committed-log
// writer (SPEC §5): each is validated against the file's dialect and appended in input
// order, and a line that fails fails alone. Blank lines are skipped. A
// missing file is created (mode 0600) and its first line decides its
// dialect; when nothing was appended to a file Append created, no empty
// file is left. opts.Fsync has each append wait for fsync(2); opts.Wait
// waits for another writer to let go of the file. Reading stops
// when ctx ends (Interrupted).
//
// Errors, with nothing read from in: wrong_dialect for another agent's
// file and unsupported_compression for a compressed rollout (grove never
// writes either), locked when another writer holds the file, needs_repair
// for a file ending in an unterminated tail, invalid_entry for a pi
// version 1 file, io_error. Otherwise the outcome is returned, with the
// writer's error on closing when there was one.
func Append(ctx context.Context, path string, in io.Reader, opts AppendOptions) (*AppendOutcome, error) {
	_, statErr := os.Lstat(path)
	existed := statErr == nil
	if existed {
		if err := checkWritable(ctx, path, "append to", "grove appends to pi, plain and messages files only; grove export --format md|html SESSION makes a copy to read"); err != nil {
			return nil, err
		}
	}
	w, err := openWaiting(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if fi, err := os.Stat(path); !existed && err == nil && fi.Size() == 0 {
			os.Remove(path)
		}
	}()
	// A file no append can go to (a torn tail, pi version 1) fails once,
	// naming where, instead of once per input line.
	if err := w.Err(); err != nil {
		w.Close()
		return nil, err
	}
	type issued struct {
		line int
		p    *jsonl.Pending
	}
	var all []issued
	sc := jsonl.NewScanner(in)
	for sc.Scan() && ctx.Err() == nil {
		l := sc.Line()
		if l.Blank() {
			continue
		}
		all = append(all, issued{l.Num, w.AppendAsync(json.RawMessage(l.Bytes))})
	}
	closeErr := w.Close()
	out := &AppendOutcome{Appended: []string{}, Failed: []AppendFailure{}, Interrupted: ctx.Err() != nil}
	if err := sc.Err(); err != nil {
		out.InputError = err.Error()
	}
	for _, is := range all {
		err := is.p.Wait()
		if err == nil {
			if is.p.ID != "" {
				out.Appended = append(out.Appended, is.p.ID)
			} else {
				out.Header = true
			}
			continue
		}
		out.Failed = append(out.Failed, appendFailure(path, is.line, err))
	}
	return out, closeErr
}

// appendFailure is the failure of input line n, whose append to the file
// at path failed with err. A full disk taints the writer, but what to do
// is free space: its hint says so.
func appendFailure(path string, n int, err error) AppendFailure {
	if df := DiskFull(path, err, 0, "grove append of the failed lines"); df != nil {
		err = df
	}
	f := AppendFailure{Line: n, Code: errs.CodeOf(err), Message: err.Error()}
	var je *errs.Error
	if errors.As(err, &je) {
		f.Message = je.Message
		if je.Code == errs.CodeDiskFull {
			f.Message += "; " + je.Hint
		}
	}
	return f
}
