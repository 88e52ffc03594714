package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

func appendLine(file, line string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lastEntryID returns the id of the last committed line of file, reading
// backwards from the end in growing windows.
func lastEntryID(file string, size int64) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for window := int64(64 << 10); ; window *= 4 {
		start := max(0, size-window)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return "", err
		}
		buf = bytes.TrimRight(buf, "\n")
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 || start == 0 {
			var e struct{ ID string }
			if err := json.Unmarshal(buf[i+1:], &e); err != nil || e.ID == "" {
				return "", fmt.Errorf("%s: last line has no id: %v", file, err)
			}
			return e.ID, nil
		}
	}
}

// appendable readies the pi session file for entries to be appended: it
// returns the id of its last entry (the first new entry's parent), its
// size in bytes and a function that cuts the file back to its length and mtime, so the corpus
// can be reused.
func appendable(file string) (parent string, size int64, restore func(), err error) {
	fi, err := os.Stat(file)
	if err != nil {
		return "", 0, nil, err
	}
	restore = func() {
		os.Truncate(file, fi.Size())
		os.Chtimes(file, fi.ModTime(), fi.ModTime())
	}
	if parent, err = lastEntryID(file, fi.Size()); err != nil {
		return "", 0, nil, err
	}
	return parent, fi.Size(), restore, nil
}

// keepLength cuts file back to size if an interrupted earlier run left
// appends in it, and returns a function that cuts it back to size again
// and restores its modification time.
func keepLength(file string, size int64) (restore func(), err error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if fi.Size() < size {
		return nil, fmt.Errorf("%s is %d bytes, shorter than the %d generated: not the harness's file", file, fi.Size(), size)
	}
	if fi.Size() > size {
		if err := os.Truncate(file, size); err != nil {
			return nil, err
		}
	}
	return func() {
		os.Truncate(file, size)
		os.Chtimes(file, fi.ModTime(), fi.ModTime())
	}, nil
}
