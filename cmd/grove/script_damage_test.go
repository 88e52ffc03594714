package main

import (
	"bytes"
	"database/sql"
	"encoding/hex"
	"fmt"
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
//	garblepage FILE TABLE  overwrite the last leaf page of the index FILE's TABLE (found
//	                       with SQLite's dbstat) that is not its root page, which Open reads
//	gensession FILE N      write a plain session of N linear messages of distinct words
func init() {
	scriptCmds["garblepage"] = cmdGarblePage
	scriptCmds["gensession"] = cmdGenSession
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

func cmdGarblePage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: garblepage FILE TABLE")
	}
	path := ts.MkAbs(args[0])
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	ts.Check(err)
	var page, size int64
	err = db.QueryRow(`SELECT pageno, pgsize FROM dbstat WHERE name = ? AND pagetype = 'leaf'
		AND pageno <> (SELECT rootpage FROM sqlite_schema WHERE name = ?) ORDER BY pageno DESC LIMIT 1`,
		args[1], args[1]).Scan(&page, &size)
	db.Close()
	if err != nil {
		ts.Fatalf("garblepage: no leaf page of %s below its root: %v", args[1], err)
	}
	b := make([]byte, size)
	rand.New(rand.NewSource(page)).Read(b)
	writeAt(ts, args[0], (page-1)*size, b)
	ts.Logf("garbled page %d of %s", page, args[1])
}

func cmdGenSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gensession FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	parent := "null"
	for i := 0; i < n; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		id := fmt.Sprintf("m-%d", i)
		fmt.Fprintf(&b, `{"id":%q,"parentId":%s,"timestamp":%d,"type":"message","message":{"role":%q,"content":[{"type":"text","text":"word%d alpha%d beta%d gamma%d delta%d"}],"timestamp":%d}}`+"\n",
			id, parent, 1767225600000+int64(i)*1000, role, i, i*7, i*13, i*31, i*57, 1767225600000+int64(i)*1000)
		parent = fmt.Sprintf("%q", id)
	}
	ts.Check(os.MkdirAll(filepath.Dir(ts.MkAbs(args[0])), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
