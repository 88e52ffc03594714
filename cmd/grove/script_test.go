package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/grove-sessions/grove/internal/pgtest"
	"github.com/grove-sessions/grove/internal/testutil"
)

// TestMain lets the test binary stand in for the grove binary (and for the
// exitcode helper) when a script runs them; see testscript.Main.
func TestMain(m *testing.M) {
	testscript.Main(pgtest.Wrap(m), map[string]func(){
		"grove":     func() { os.Exit(mainStatus()) },
		"exitcode":  exitcodeMain,
		"withumask": withumaskMain,
	})
}

// TestScripts runs the command-line scripts in testdata/script (SPEC §8).
//
// Every script starts in $WORK with the shared fixtures copied in:
//
//	$WORK/plain/chapter-tree.jsonl   the session-tree chapter's plain file
//	$WORK/pi/*.jsonl                 pi version 1, 2 and 3 files
//	$WORK/cases/*.jsonl              the damaged cases
//	$WORK/quirks/*.jsonl             lone surrogates, duplicated ids
//
// and GROVE_DB=$WORK/index.db, HOME=$WORK/home, XDG_DATA_HOME=$WORK/xdg, so
// nothing outside $WORK is read or written.
//
// Commands beyond testscript's own (see scriptCmds):
//
//	exitcode N PROG [ARGS...]         PROG must exit with status N (0, 1, 2, ...)
//	jsonget FILE PATH [WANT]          the value at PATH exists [and equals WANT]
//	jsonkeys [-atleast] FILE PATH K...  the object at PATH has exactly [at least] keys K
//	jsonlen FILE PATH N               the array or object at PATH has N elements
//	contains FILE WANTFILE            every non-empty line of WANTFILE occurs in FILE, byte for byte
//	appendfile DST SRC                append the bytes of SRC to DST, as a writer would
//	hardlink OLD NEW                  NEW is a hard link to OLD
//	aligned FILE REGEXP               REGEXP starts at one terminal column on every line it matches (at least two)
//
// FILE may be stdout or stderr. The json commands also check that FILE holds
// exactly one JSON document. See jsonPath for the PATH syntax.
//
// The condition [postgres] is true in TestScriptsPostgres, where the same
// scripts run with the index in PostgreSQL; a script about the SQLite
// file itself (its modes, sidecars, damage, rebuild's swap) skips there.
func TestScripts(t *testing.T) { runScripts(t, false) }

// TestScriptsPostgres runs the scripts of TestScripts with GROVE_DB a new
// PostgreSQL database of a throwaway cluster (internal/pgtest; SPEC §10):
// the same commands must give the same output. The full set (SlowEnv)
// runs every script; the loop while developing runs fastPostgresScripts.
// It skips, saying why, without PostgreSQL's binaries.
func TestScriptsPostgres(t *testing.T) {
	if ok, why := pgtest.Available(); !ok {
		t.Skip(why)
	}
	runScripts(t, true)
}

// fastPostgresScripts are the scripts TestScriptsPostgres runs outside the
// full set: the PostgreSQL one, and those that cover indexing, listings,
// paths, context, search and damage in one go.
var fastPostgresScripts = []string{"postgres", "index_and_sessions", "chapter_tree", "context", "search", "search_totals", "duplicate_ids", "pi_fixtures", "verify", "workspace_windows", "listing_order", "kinds"}

func runScripts(t *testing.T, postgres bool) {
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "script")
	var files []string
	if postgres && (testing.Short() || os.Getenv(testutil.SlowEnv) != "1") {
		for _, name := range fastPostgresScripts {
			files = append(files, filepath.Join(dir, name+".txtar"))
		}
		t.Logf("the scripts %v only; %s=1 runs every script against PostgreSQL", fastPostgresScripts, testutil.SlowEnv)
	}
	if files != nil {
		dir = "" // testscript reads Files only without Dir
	}
	testscript.Run(t, testscript.Params{
		Dir:   dir,
		Files: files,
		Cmds:  scriptCmds,
		Condition: func(cond string) (bool, error) {
			if cond == "postgres" {
				return postgres, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(e *testscript.Env) error {
			for _, glob := range []string{"plain/*.jsonl", "pi/*.jsonl", "cases/*.jsonl", "quirks/*.jsonl"} {
				if err := copyFixtures(filepath.Join(fixtures, glob), filepath.Join(e.WorkDir, filepath.Dir(glob))); err != nil {
					return err
				}
			}
			home := filepath.Join(e.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			e.Setenv("GROVE_DB", filepath.Join(e.WorkDir, "index.db"))
			if postgres {
				url, drop, skip, err := pgtest.NewDB()
				if err != nil {
					return err
				}
				if skip != "" {
					return errors.New(skip)
				}
				e.Defer(drop)
				e.Setenv("GROVE_DB", url)
			}
			e.Setenv("HOME", home)
			e.Setenv("XDG_DATA_HOME", filepath.Join(e.WorkDir, "xdg"))
			return nil
		},
	})
}

// copyFixtures copies the files matching glob into dir, keeping their bytes.
func copyFixtures(glob, dir string) error {
	files, err := filepath.Glob(glob)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no fixtures match %s", glob)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// exitcodeMain is `exitcode N PROG [ARGS...]`: it runs PROG with the
// script's environment and standard streams and succeeds only if PROG exits
// with status N. It runs as its own process (registered with
// testscript.Main), so PROG sees exactly the environment the script built.
func exitcodeMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: exitcode N PROG [ARGS...]")
		os.Exit(3)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "exitcode: bad status %q\n", os.Args[1])
		os.Exit(3)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, io.MultiWriter(os.Stderr, &stderr)
	got := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "exitcode: %v\n", err)
			os.Exit(3)
		}
		got = ee.ExitCode()
	}
	// A Go panic also exits with status 2, the status of a wrong command line.
	if bytes.Contains(stderr.Bytes(), []byte("panic: ")) && bytes.Contains(stderr.Bytes(), []byte("goroutine ")) {
		fmt.Fprintf(os.Stderr, "exitcode: %s panicked\n", os.Args[2])
		os.Exit(3)
	}
	if got != want {
		fmt.Fprintf(os.Stderr, "exitcode: %s exited with status %d, want %d\n", os.Args[2], got, want)
		os.Exit(3)
	}
}

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"jsonget":    cmdJSONGet,
	"jsonkeys":   cmdJSONKeys,
	"jsonlen":    cmdJSONLen,
	"contains":   cmdContains,
	"appendfile": cmdAppendFile,
	"hardlink":   cmdHardlink,
	"aligned":    cmdAligned,
	"mode":       cmdMode,
}

// withumaskMain is `withumask MASK PROG [ARGS...]`: it sets the umask
// (octal) and runs PROG in its place, with the script's environment and
// streams, exiting with PROG's status. Its own process, so the test
// process's umask is never changed.
func withumaskMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: withumask MASK PROG [ARGS...]")
		os.Exit(3)
	}
	mask, err := strconv.ParseUint(os.Args[1], 8, 32)
	if err != nil {
		fmt.Fprintf(os.Stderr, "withumask: bad mask %q\n", os.Args[1])
		os.Exit(3)
	}
	umask(int(mask))
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "withumask:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// cmdMode is `mode FILE PERM`: FILE (not followed if a symlink) has exactly
// the permission bits PERM (octal, such as 0600).
func cmdMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mode FILE PERM")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	if err != nil {
		ts.Fatalf("mode: bad PERM %q", args[1])
	}
	fi, err := os.Lstat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := uint64(fi.Mode().Perm()); (got == want) == neg {
		ts.Fatalf("%s is %04o, want %s%04o", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdJSONGet is `jsonget FILE PATH [WANT]`. A string value is compared
// unquoted; any other value as compact JSON (object keys sorted). With !, the
// value must be absent (no WANT) or differ from WANT.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: jsonget FILE PATH [WANT]")
	}
	v, err := jsonPath(readJSON(ts, args[0]), args[1])
	if len(args) == 2 {
		switch {
		case err != nil && !neg:
			ts.Fatalf("%s: %v", args[0], err)
		case err == nil && neg:
			ts.Fatalf("%s: %s is present: %s", args[0], args[1], showJSON(v))
		}
		return
	}
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	got := showJSON(v)
	switch {
	case got != args[2] && !neg:
		ts.Fatalf("%s: %s = %s, want %s", args[0], args[1], got, args[2])
	case got == args[2] && neg:
		ts.Fatalf("%s: %s = %s, want anything else", args[0], args[1], got)
	}
}

// cmdJSONKeys is `jsonkeys [-atleast] FILE PATH KEY...`.
func cmdJSONKeys(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("jsonkeys does not support !")
	}
	atLeast := len(args) > 0 && args[0] == "-atleast"
	if atLeast {
		args = args[1:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: jsonkeys [-atleast] FILE PATH KEY...")
	}
	v, err := jsonPath(readJSON(ts, args[0]), args[1])
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		ts.Fatalf("%s: %s = %s, want an object", args[0], args[1], showJSON(v))
	}
	var got []string
	for k := range obj {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(args[2:]))
	var missing, extra []string
	for _, k := range want {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) {
			extra = append(extra, k)
		}
	}
	if len(missing) > 0 || (!atLeast && len(extra) > 0) {
		ts.Fatalf("%s: keys of %s = %q, want %q (missing %q, extra %q)", args[0], args[1], got, want, missing, extra)
	}
}

// cmdJSONLen is `jsonlen FILE PATH N`.
func cmdJSONLen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonlen FILE PATH N")
	}
	v, err := jsonPath(readJSON(ts, args[0]), args[1])
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	var n int
	switch v := v.(type) {
	case []any:
		n = len(v)
	case map[string]any:
		n = len(v)
	default:
		ts.Fatalf("%s: %s = %s, want an array or object", args[0], args[1], showJSON(v))
	}
	if (strconv.Itoa(n) == args[2]) == neg {
		ts.Fatalf("%s: len(%s) = %d, want %s%s", args[0], args[1], n, map[bool]string{true: "not ", false: ""}[neg], args[2])
	}
}

// cmdContains is `contains FILE WANTFILE`: every non-empty line of WANTFILE
// must occur in FILE as a literal byte string (for "exactly as stored").
func cmdContains(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: contains FILE WANTFILE")
	}
	got := ts.ReadFile(args[0])
	for i, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if line != "" && !strings.Contains(got, line) {
			ts.Fatalf("%s: line %d of %s is not in it:\n%s", args[0], i+1, args[1], line)
		}
	}
}

// cmdAppendFile is `appendfile DST SRC`: it appends SRC's bytes to DST
// without touching what DST already holds.
func cmdAppendFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: appendfile DST SRC")
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_APPEND, 0)
	ts.Check(err)
	_, err = f.WriteString(ts.ReadFile(args[1]))
	ts.Check(errors.Join(err, f.Close()))
}

// cmdHardlink is `hardlink OLD NEW`: NEW becomes a second name of OLD's
// file (same device and inode).
func cmdHardlink(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hardlink OLD NEW")
	}
	ts.Check(os.Link(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
}

// readJSON decodes FILE, which must hold exactly one JSON document (SPEC
// §8's rule for --json output). Numbers stay json.Number.
func readJSON(ts *testscript.TestScript, file string) any {
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(file)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("%s: not a JSON document: %v", file, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		ts.Fatalf("%s: more than one JSON document", file)
	}
	return v
}

// jsonPath walks v along path: "." is the document itself; ".key" selects
// an object member; ".N" an array element; "[key=value]" the one element of
// an array whose member key shows as value (value may hold dots), as in
// `.sessions[id=chapter-tree].state` or `.leaves.0.id`.
func jsonPath(v any, path string) (any, error) {
	if path == "." {
		return v, nil
	}
	rest := path
	for rest != "" {
		var seg string
		switch rest[0] {
		case '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				seg, rest = rest[1:], ""
			} else {
				seg, rest = rest[1:end+1], rest[end+1:]
			}
			switch x := v.(type) {
			case map[string]any:
				var ok bool
				if v, ok = x[seg]; !ok {
					return nil, fmt.Errorf("%s: no member %q", path, seg)
				}
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(x) {
					return nil, fmt.Errorf("%s: no element %q in an array of %d", path, seg, len(x))
				}
				v = x[i]
			default:
				return nil, fmt.Errorf("%s: cannot select %q in %s", path, seg, showJSON(v))
			}
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("%s: unclosed [", path)
			}
			seg, rest = rest[1:end], rest[end+1:]
			key, want, ok := strings.Cut(seg, "=")
			arr, isArr := v.([]any)
			if !ok || !isArr {
				return nil, fmt.Errorf("%s: [%s] needs key=value and an array", path, seg)
			}
			var found []any
			for _, el := range arr {
				if m, ok := el.(map[string]any); ok {
					if f, ok := m[key]; ok && showJSON(f) == want {
						found = append(found, el)
					}
				}
			}
			if len(found) != 1 {
				return nil, fmt.Errorf("%s: %d elements match [%s], want 1", path, len(found), seg)
			}
			v = found[0]
		default:
			return nil, fmt.Errorf("bad path %q: segments start with . or [", path)
		}
	}
	return v, nil
}

// showJSON shows a string unquoted and anything else as compact JSON.
func showJSON(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// cmdAligned is `aligned FILE REGEXP`: on every line of FILE that REGEXP
// matches (at least two), its first match starts at the same terminal
// column, counted as a terminal draws the text before it (a CJK character
// or an emoji is two columns).
func cmdAligned(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: aligned FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	col, first, n := -1, "", 0
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		loc := re.FindStringIndex(line)
		if loc == nil {
			continue
		}
		n++
		c := uniseg.StringWidth(line[:loc[0]])
		if col < 0 {
			col, first = c, line
		} else if c != col {
			ts.Fatalf("%s: %q starts at column %d in\n%s\nbut at %d in\n%s", args[0], args[1], c, line, col, first)
		}
	}
	if n < 2 {
		ts.Fatalf("%s: %q matches %d lines, want at least two", args[0], args[1], n)
	}
}
