package main

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Script commands that damage files the way a crash, a full disk or a
// stray program does, for damaged_index.txtar:
//
//	truncate FILE SIZE     cut FILE to SIZE bytes (a number, or a fraction of its size: 1/2)
//	garble FILE FROM TO    overwrite bytes [FROM, TO) with fixed pseudo-random bytes
//	poke FILE OFFSET HEX   overwrite the bytes at OFFSET with HEX (a header field)
//	globcmp GLOB FILE      exactly one file matching GLOB (sidecars aside) holds FILE's bytes;
//	                       with !, no file matches GLOB
func init() {
	scriptCmds["truncate"] = cmdTruncate
	scriptCmds["garble"] = cmdGarble
	scriptCmds["poke"] = cmdPoke
	scriptCmds["globcmp"] = cmdGlobCmp
}

func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate FILE SIZE")
	}
	path := ts.MkAbs(args[0])
	fi, err := os.Stat(path)
	ts.Check(err)
	size, err := strconv.ParseInt(args[1], 10, 64)
	if num, den, ok := strings.Cut(args[1], "/"); ok {
		n, err1 := strconv.ParseInt(num, 10, 64)
		d, err2 := strconv.ParseInt(den, 10, 64)
		if err1 != nil || err2 != nil || d == 0 {
			ts.Fatalf("truncate: bad fraction %q", args[1])
		}
		size, err = fi.Size()*n/d, nil
	}
	ts.Check(err)
	ts.Check(os.Truncate(path, size))
}

func cmdGarble(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: garble FILE FROM TO")
	}
	from, err1 := strconv.ParseInt(args[1], 10, 64)
	to, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil || to < from {
		ts.Fatalf("garble: bad range %s %s", args[1], args[2])
	}
	b := make([]byte, to-from)
	rand.New(rand.NewSource(from)).Read(b)
	writeAt(ts, args[0], from, b)
}

func cmdPoke(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: poke FILE OFFSET HEX")
	}
	off, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	b, err := hex.DecodeString(args[2])
	ts.Check(err)
	writeAt(ts, args[0], off, b)
}

// writeAt overwrites bytes of file in place, as a stray write would.
func writeAt(ts *testscript.TestScript, file string, off int64, b []byte) {
	f, err := os.OpenFile(ts.MkAbs(file), os.O_WRONLY, 0)
	ts.Check(err)
	_, err = f.WriteAt(b, off)
	ts.Check(err)
	ts.Check(f.Close())
}

func cmdGlobCmp(ts *testscript.TestScript, neg bool, args []string) {
	if (neg && len(args) != 1) || (!neg && len(args) != 2) {
		ts.Fatalf("usage: globcmp GLOB FILE, or ! globcmp GLOB")
	}
	all, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if neg {
		if len(all) > 0 {
			ts.Fatalf("%s matches %q, want nothing", args[0], all)
		}
		return
	}
	var found []string
	for _, f := range all {
		if !strings.HasSuffix(f, "-wal") && !strings.HasSuffix(f, "-shm") && !strings.HasSuffix(f, "-journal") {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		ts.Fatalf("%s matches %q, want one file", args[0], found)
	}
	got, err := os.ReadFile(found[0])
	ts.Check(err)
	want, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	if !bytes.Equal(got, want) {
		ts.Fatalf("%s differs from %s", found[0], args[1])
	}
}
