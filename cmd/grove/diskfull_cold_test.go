package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// markedSession is a pi session of about size bytes of user messages of
// random words, its first message holding the word mark<seed> (found in
// no other session) and its entries one a minute from its own day, so
// that no two sessions share a second.
func markedSession(size int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	names := []string{"alpha", "gamma", "delta", "epsilon", "iota", "lambda", "mu", "xi", "omicron", "rho", "sigma", "tau", "theta"}
	var b strings.Builder
	day := fmt.Sprintf("2026-02-%02d", 1+seed%28)
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":"marked-%04d","timestamp":"%sT00:00:00.000Z","cwd":"/tmp/marked"}`+"\n", seed, day)
	parent := "null"
	for i := 0; b.Len() < size; i++ {
		var text strings.Builder
		if i == 0 {
			fmt.Fprintf(&text, "mark%04d ", seed)
		}
		for range 200 {
			fmt.Fprintf(&text, "%s%d ", names[r.Intn(len(names))], r.Intn(100000))
		}
		fmt.Fprintf(&b, `{"type":"message","id":"m%d-%d","parentId":%s,"timestamp":"%sT%02d:%02d:00.000Z","message":{"role":"user","content":%q}}`+"\n",
			seed, i, parent, day, i/60%24, i%60, text.String())
		parent = fmt.Sprintf(`"m%d-%d"`, seed, i)
	}
	return []byte(b.String())
}

// denseSession is a pi session of n user messages of two letters, the
// first one mark<seed>: many entry rows and little search text, on day
// seed-100 of March 2026.
func denseSession(n int, seed int64) []byte {
	var b strings.Builder
	day := fmt.Sprintf("2026-03-%02d", 1+(seed-100)%28)
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":"marked-%04d","timestamp":"%sT00:00:00.000Z","cwd":"/tmp/marked"}`+"\n", seed, day)
	parent := "null"
	for i := range n {
		text := "ok"
		if i == 0 {
			text = fmt.Sprintf("mark%04d", seed)
		}
		fmt.Fprintf(&b, `{"type":"message","id":"d%d-%d","parentId":%s,"timestamp":"%sT%02d:%02d:%02d.000Z","message":{"role":"user","content":%q}}`+"\n",
			seed, i, parent, day, i/3600, i/60%60, i%60, text)
		parent = fmt.Sprintf(`"d%d-%d"`, seed, i)
	}
	return []byte(b.String())
}

// diskFullCorpus writes, under a new temporary directory (never on the
// small disk), 10 marked sessions of 300 KB of words (much search text)
// in words/, 3 of 6,000 short messages (many entry rows) in dense/ and,
// when ../shared/corpus is there, a copy of it in shared/ (4.5 MB, or 7.9
// MB with it); it returns the root and the markers.
func diskFullCorpus(t *testing.T) (string, []string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "corpus")
	var marks []string
	for i := range 10 {
		seed := int64(i + 1)
		testutil.MustWriteFile(t, filepath.Join(root, "words"), fmt.Sprintf("s%02d.jsonl", seed), markedSession(300<<10, seed))
		marks = append(marks, fmt.Sprintf("mark%04d", seed))
	}
	for seed := int64(101); seed <= 103; seed++ {
		testutil.MustWriteFile(t, filepath.Join(root, "dense"), fmt.Sprintf("d%d.jsonl", seed), denseSession(6000, seed))
		marks = append(marks, fmt.Sprintf("mark%04d", seed))
	}
	shared := filepath.Join(testutil.Root(t), "..", "shared", "corpus")
	if _, err := os.Stat(shared); err != nil {
		t.Logf("%s is absent: the generated sessions only", shared)
		return root, marks
	}
	err := filepath.WalkDir(shared, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		testutil.MustCopy(t, p, filepath.Join(root, "shared", filepath.Dir(rel)), filepath.Base(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, marks
}

// binGrove runs the grove binary (mustGroveBinary) on the index db and
// returns its exit status, stdout and stderr.
func binGrove(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	return keptRun(t, nil, append([]string{"--db", db}, args...)...)
}

// answers are what a user reads of an index: the session list, searches
// for every marker and a few words, and verify, as --json bytes.
func answers(t *testing.T, db string, marks []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, args := range append([][]string{{"sessions"}, {"verify"}, {"search", "the"}, {"search", "file"}},
		func() [][]string {
			var s [][]string
			for _, m := range marks {
				s = append(s, []string{"search", m})
			}
			return s
		}()...) {
		code, stdout, stderr := binGrove(t, db, append([]string{"--json"}, args...)...)
		// Hits name the index in the commands that open them.
		out[strings.Join(args, " ")] = strings.ReplaceAll(fmt.Sprintf("exit %d\n%s%s", code, stdout, stderr), db, "INDEX")
	}
	return out
}

// folder is the size of every file in dir, by name.
func folder(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			sizes[e.Name()] = fi.Size()
		}
	}
	return sizes
}

// indexedInRun reads "N files indexed in this run" from a disk_full
// message (-1 when it does not say).
func indexedInRun(msg string) int {
	m := regexp.MustCompile(`(\d+) files? indexed in this run`).FindStringSubmatch(msg)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// unchangedInRun reads "N unchanged" from a disk_full message (0 when it
// does not say).
func unchangedInRun(msg string) int {
	m := regexp.MustCompile(`in this run, (\d+) unchanged`).FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// mustHoldWhatItSays checks an index after a `grove index` that failed
// with disk_full: it lists exactly the sessions the message says were
// indexed or unchanged (none when it says nothing), and mustHold.
func mustHoldWhatItSays(t *testing.T, db, msg string, what string) {
	t.Helper()
	n := max(0, indexedInRun(msg)) + unchangedInRun(msg)
	mustHold(t, db, n, what+" ("+msg+")")
}

// mustHold checks that the index lists n sessions, every marked one found
// by its marker (its search text stored), no search text pending, and
// that verify is clean.
func mustHold(t *testing.T, db string, n int, what string) {
	t.Helper()
	_, list, _ := binGrove(t, db, "--json", "sessions")
	var got struct {
		Sessions []struct{ ID, Path string }
	}
	json.Unmarshal([]byte(list), &got)
	if len(got.Sessions) != n {
		t.Fatalf("%s: the index lists %d sessions, want %d", what, len(got.Sessions), n)
	}
	for _, s := range got.Sessions {
		if !strings.HasPrefix(s.ID, "marked-") {
			continue
		}
		mark := "mark" + strings.TrimPrefix(s.ID, "marked-")
		_, res, _ := binGrove(t, db, "--json", "search", mark)
		if !strings.Contains(res, `"total":1,`) || strings.Contains(res, "text_pending") {
			t.Fatalf("%s: session %s is listed but search %s = %s; want its one hit", what, s.ID, mark, res)
		}
	}
	if code, v, stderr := binGrove(t, db, "--json", "verify"); code != 0 || !strings.Contains(v, `"mismatches":0,`) {
		t.Fatalf("%s: grove verify = %d, %s %s", what, code, v, stderr)
	}
}

// mustNotGrow checks that a failed run left no file in the index's folder
// larger than before it, but the index file itself when the run made it or
// says it indexed files, and no file that was not there (the WAL, the
// rebuild and search text files): what the index needs stays, its
// sidecars are given back (SPEC §6).
func mustNotGrow(t *testing.T, before, after map[string]int64, indexed int, what string) {
	t.Helper()
	for name, size := range after {
		old, had := before[name]
		switch {
		case name == "index.db" && (indexed > 0 || !had):
		case name == "index.db.sources" || name == "index.db.lock":
		case name == "index.db-wal" && size == 0:
		case name == "index.db-shm" && had:
		case !had:
			t.Errorf("%s: left %s (%d bytes), not there before", what, name, size)
		case size > old:
			t.Errorf("%s: %s grew from %d to %d bytes", what, name, old, size)
		}
	}
}

// TestRun_DiskFullColdIndex: the first `grove index` of sessions larger
// than the disk, the index on tmpfs of several sizes so that the disk
// fills in each phase of the cold build (its private file, the search
// text, the swap, the WAL), then in the file-by-file way. Each run
// succeeds with the answers of an index built with room, or fails with
// disk_full, exit 1, holding exactly the sessions it says it indexed,
// each searchable, verify clean, no file grown but the index; run again
// on the full disk, it fails the same way without growing anything; once
// there is room, the next run completes the index: the same answers as one
// built with room (SPEC §6, docs/indexing.md "A full disk").
func TestRun_DiskFullColdIndex(t *testing.T) {
	// The index's room is measured here: no kept store beside it (a full
	// disk while keeping is TestKeep_DiskFull, internal/ingest).
	t.Setenv("GROVE_KEEP", "0")
	testutil.SkipSlow(t, "./cmd/grove", "indexes 8 MB of sessions into tmpfs of 9 sizes")
	root, marks := diskFullCorpus(t)
	ref := filepath.Join(t.TempDir(), "index.db")
	if code, stdout, stderr := binGrove(t, ref, "--json", "index", "--root", root); code != 0 {
		t.Fatalf("grove index with room = %d, %s %s", code, stdout, stderr)
	}
	want := answers(t, ref, marks)
	phases := map[string]bool{}
	// With ../shared/corpus, the cold build meets the full disk in its
	// search text spool (2 MB), its private file (6 MB), the swap (10 MB),
	// its search text file (13 MB), the copy of the text into the index
	// (14 MB), and has room at 16 MB; file by file, 12 MB hold it all.
	for _, size := range []string{"2m", "4m", "6m", "8m", "10m", "12m", "13m", "14m", "16m"} {
		fsDir := mustSmallFS(t, size)
		db := filepath.Join(fsDir, "index.db")
		what := "grove index on " + size
		code, stdout, stderr := binGrove(t, db, "--json", "index", "--root", root)
		switch code {
		case 0:
			if got := answers(t, db, marks); !maps.Equal(got, want) {
				t.Fatalf("%s succeeded (%s) but answers otherwise than an index built with room:\n%s", what, stdout, answerDiff(got, want))
			}
			phases["whole"] = true
			continue
		case 1:
			mustDiskFull(t, what, code, stdout, fsDir)
		default:
			t.Fatalf("%s = %d, %s %s", what, code, stdout, stderr)
		}
		var e struct{ Error diskFullErr }
		json.Unmarshal([]byte(stdout), &e)
		t.Logf("%s: %s", what, e.Error.Message)
		phases[e.Error.Message] = true
		mustHoldWhatItSays(t, db, e.Error.Message, what)
		mustNotGrow(t, map[string]int64{}, folder(t, fsDir), indexedInRun(e.Error.Message), what)

		// Again on the same full disk: no file grows, nothing claimed.
		before := folder(t, fsDir)
		code, stdout, _ = binGrove(t, db, "--json", "index", "--root", root)
		mustDiskFull(t, what+", again", code, stdout, fsDir)
		json.Unmarshal([]byte(stdout), &e)
		mustHoldWhatItSays(t, db, e.Error.Message, what+", again")
		mustNotGrow(t, before, folder(t, fsDir), indexedInRun(e.Error.Message), what+", again")

		// Room: the index is completed.
		if out, err := exec.Command("mount", "-o", "remount,size=64m", fsDir).CombinedOutput(); err != nil {
			t.Fatalf("remount %s larger: %v %s", fsDir, err, out)
		}
		if code, stdout, stderr := binGrove(t, db, "--json", "index", "--root", root); code != 0 {
			t.Fatalf("%s, then with room: grove index = %d, %s %s", what, code, stdout, stderr)
		}
		if got := answers(t, db, marks); !maps.Equal(got, want) {
			t.Fatalf("%s, then with room: the index answers otherwise than one built with room:\n%s", what, answerDiff(got, want))
		}
	}
	if !phases["whole"] {
		t.Errorf("no tmpfs size was large enough for the whole index: the sweep needs a larger one")
	}
}

// answerDiff names the first answer that differs, and shows it from a
// little before the first byte that differs.
func answerDiff(got, want map[string]string) string {
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		g, w := got[k], want[k]
		if g == w {
			continue
		}
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		from := max(0, i-120)
		return fmt.Sprintf("grove --json %s, from byte %d:\n got: %.300s\nwant: %.300s", k, from, g[from:], w[from:])
	}
	return ""
}

// TestRun_DiskFullIncremental: `grove index` of sessions of words into an
// index that holds one already (the ordinary way, file by file) on tmpfs
// of several sizes fails with disk_full holding exactly the sessions it
// says, each searchable, and no file grown but the index: every commit
// it made could be folded into the index file, so no WAL is left taking
// the room (docs/indexing.md "A full disk"); with room, the next run completes it.
func TestRun_DiskFullIncremental(t *testing.T) {
	// The index's room is measured here: no kept store beside it (a full
	// disk while keeping is TestKeep_DiskFull, internal/ingest).
	t.Setenv("GROVE_KEEP", "0")
	testutil.SkipSlow(t, "./cmd/grove", "indexes 3 MB of sessions into tmpfs of 3 sizes")
	root := filepath.Join(t.TempDir(), "words")
	var marks []string
	for i := range 10 {
		seed := int64(i + 1)
		testutil.MustWriteFile(t, root, fmt.Sprintf("s%02d.jsonl", seed), markedSession(300<<10, seed))
		marks = append(marks, fmt.Sprintf("mark%04d", seed))
	}
	first := testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), t.TempDir(), "v3-tree.jsonl")
	ref := filepath.Join(t.TempDir(), "index.db")
	for _, args := range [][]string{{"index", first}, {"index", "--root", root}} {
		if code, stdout, stderr := binGrove(t, ref, append([]string{"--json"}, args...)...); code != 0 {
			t.Fatalf("grove %v with room = %d, %s %s", args, code, stdout, stderr)
		}
	}
	want := answers(t, ref, marks)
	for _, size := range []string{"3m", "4m", "5m"} {
		fsDir := mustSmallFS(t, size)
		db := filepath.Join(fsDir, "index.db")
		what := "grove index on " + size
		if code, stdout, stderr := binGrove(t, db, "--json", "index", first); code != 0 {
			t.Fatalf("grove index %s on %s = %d, %s %s", first, size, code, stdout, stderr)
		}
		before := folder(t, fsDir)
		code, stdout, _ := binGrove(t, db, "--json", "index", "--root", root)
		mustDiskFull(t, what, code, stdout, fsDir)
		var e struct{ Error diskFullErr }
		json.Unmarshal([]byte(stdout), &e)
		t.Logf("%s: %s", what, e.Error.Message)
		n := indexedInRun(e.Error.Message)
		mustHold(t, db, 1+n, what+" ("+e.Error.Message+")")
		mustNotGrow(t, before, folder(t, fsDir), n, what)
		if out, err := exec.Command("mount", "-o", "remount,size=64m", fsDir).CombinedOutput(); err != nil {
			t.Fatalf("remount %s larger: %v %s", fsDir, err, out)
		}
		if code, stdout, stderr := binGrove(t, db, "--json", "index", "--root", root); code != 0 {
			t.Fatalf("%s, then with room: grove index = %d, %s %s", what, code, stdout, stderr)
		}
		if got := answers(t, db, marks); !maps.Equal(got, want) {
			t.Fatalf("%s, then with room: the index answers otherwise than one built with room:\n%s", what, answerDiff(got, want))
		}
	}
}

// TestRun_DiskFullRebuild: `grove rebuild` of all the sessions over an
// index of some of them, on a disk with room for less and less of the new
// index beside it (its private file and search text, the swap through the
// WAL, the index file growing as the WAL is folded in). Each run succeeds
// with the answers of an index built with room, or fails with disk_full,
// exit 1, the old index answering as before and no file beside it grown
// or left (SPEC §6; docs/indexing.md "grove rebuild").
func TestRun_DiskFullRebuild(t *testing.T) {
	// The index's room is measured here: no kept store beside it (a full
	// disk while keeping is TestKeep_DiskFull, internal/ingest).
	t.Setenv("GROVE_KEEP", "0")
	testutil.SkipSlow(t, "./cmd/grove", "rebuilds an 8 MB corpus on a disk filled 8 ways")
	root, marks := diskFullCorpus(t)
	ref := filepath.Join(t.TempDir(), "index.db")
	if code, stdout, stderr := binGrove(t, ref, "--json", "index", "--root", root); code != 0 {
		t.Fatalf("grove index with room = %d, %s %s", code, stdout, stderr)
	}
	want := answers(t, ref, marks)
	size := folder(t, filepath.Dir(ref))["index.db"]
	fsDir := mustSmallFS(t, "64m")
	db := filepath.Join(fsDir, "index.db")
	if code, stdout, stderr := binGrove(t, db, "--json", "index", "--root", filepath.Join(root, "words")); code != 0 {
		t.Fatalf("grove index with room = %d, %s %s", code, stdout, stderr)
	}
	old := answers(t, db, marks)
	growth := size - folder(t, fsDir)["index.db"]
	failed, rebuilt := false, false
	for _, leave := range []int64{512 << 10, size / 2, size, 3 * size / 2, 2 * size, 2*size + growth/2, 5 * size / 2, 4 * size} {
		what := fmt.Sprintf("grove rebuild with %d KB free (the new index is %d KB)", leave>>10, size>>10)
		filler := fill(t, fsDir, leave)
		before := folder(t, fsDir)
		code, stdout, stderr := binGrove(t, db, "--json", "rebuild", "--root", root)
		wantNow := want
		switch code {
		case 0:
			rebuilt = true
		case 1:
			mustDiskFull(t, what, code, stdout, fsDir)
			var e struct{ Error diskFullErr }
			json.Unmarshal([]byte(stdout), &e)
			t.Logf("%s: %s", what, e.Error.Message)
			mustNotGrow(t, before, folder(t, fsDir), 0, what)
			wantNow, failed = old, true
		default:
			t.Fatalf("%s = %d, %s %s", what, code, stdout, stderr)
		}
		os.Remove(filler)
		if got := answers(t, db, marks); !maps.Equal(got, wantNow) {
			t.Fatalf("%s (exit %d): the index answers otherwise than it should:\n%s", what, code, answerDiff(got, wantNow))
		}
		if rebuilt {
			break
		}
	}
	if !failed || !rebuilt {
		t.Errorf("the rebuilds failed %v, succeeded %v: the sweep needs both", failed, rebuilt)
	}
}
