package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/testutil"
)

// mustSmallFS mounts a tmpfs of size bytes on a new directory and unmounts
// it when the test ends. It skips the test, saying why, when not root or
// when the mount fails (CI runs as root, so there it runs).
func mustSmallFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("disk-full tests mount a tmpfs, which needs root; run go test as root to include them")
	}
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (%v: %s); the disk-full tests need one", dir, err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file into dir until the file system is full, then frees
// leave bytes of it.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	fi, _ := f.Stat()
	if err := f.Truncate(max(0, fi.Size()-leave)); err != nil {
		t.Fatal(err)
	}
	return name
}

// diskFullErr is the --json error object of a disk_full answer.
type diskFullErr struct{ Code, Message, Path, Hint string }

func mustDiskFull(t *testing.T, what string, code int, stdout, fsDir string) {
	t.Helper()
	var got struct{ Error diskFullErr }
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 1 || got.Error.Code != "disk_full" ||
		!strings.HasPrefix(got.Error.Path, fsDir) || !strings.Contains(got.Error.Hint, "free space on "+fsDir) {
		t.Fatalf("%s on a full disk = %d, %s; want exit 1, disk_full naming a file under %s, a hint to free space on it", what, code, stdout, fsDir)
	}
}

// mustWholeIndex checks the index with SQLite's integrity check and, with
// noWAL, that no WAL is left taking space.
func mustWholeIndex(t *testing.T, db string, noWAL bool) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var res string
	if err := conn.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check of %s = %q, %v; want ok", db, res, err)
	}
	if fi, err := os.Stat(db + "-wal"); noWAL && err == nil && fi.Size() > 0 {
		t.Errorf("%s-wal is %d bytes after the failed write; want it checkpointed or removed", db, fi.Size())
	}
}

// TestRun_DiskFull: on a 3 MB tmpfs, every command that writes answers
// disk_full (the file, a hint naming the file system), exit 1; the old
// index stays whole and answers as before; no WAL, rebuild file or
// temporary file is left (SPEC §8 disk_full; docs/indexing.md "A full disk").
func TestRun_DiskFull(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "fills a 3 MB tmpfs with every writing command")
	fsDir := mustSmallFS(t, "3m")
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(fsDir, "index.db")
	small := filepath.Join(dir, "small")
	for _, f := range []string{"pi/v3-tree.jsonl", "plain/chapter-tree.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, f), small, filepath.Base(f))
	}
	big := filepath.Join(dir, "big")
	for i := range 6 {
		testutil.MustWriteFile(t, big, fmt.Sprintf("s%d.jsonl", i), testutil.PiSession(1<<20, int64(i)))
	}
	grove := groveOn(t, db)
	if code, _, stderr := grove("index", "--root", small); code != 0 {
		t.Fatalf("grove index of the small root = %d, %s", code, stderr)
	}
	_, before, _ := grove("--json", "path", "5b7e")

	// check: the index is whole and answers as before; noWAL: and no WAL
	// is left (one holding the last file that fit may stay on a disk that
	// has no room to fold it into the index).
	check := func(what string, noWAL bool) {
		t.Helper()
		mustWholeIndex(t, db, noWAL)
		if code, got, stderr := grove("--json", "path", "5b7e"); code != 0 || got != before {
			t.Fatalf("after %s: grove path = %d, %s %s; want the old index's answer", what, code, got, stderr)
		}
		left, _ := filepath.Glob(filepath.Join(filepath.Dir(db), ".*.tmp"))
		if reb, _ := filepath.Glob(db + ".rebuild*"); len(reb)+len(left) > 0 {
			t.Errorf("after %s: left behind %v %v", what, reb, left)
		}
	}

	// rebuild: the new index beside the old one does not fit. It is kept
	// only whole, so nothing of it is kept.
	code, stdout, _ := grove("--json", "rebuild", "--root", small, "--root", big)
	mustDiskFull(t, "grove rebuild", code, stdout, fsDir)
	check("grove rebuild", true)

	// Even a reader needs room for the index's -shm file; the empty -wal
	// and the -shm its failed open made are removed at once, not left
	// until the next command.
	filler := fill(t, fsDir, 2<<10)
	code, stdout, _ = grove("--json", "sessions")
	mustDiskFull(t, "grove sessions", code, stdout, fsDir)
	for _, s := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(db + s); err == nil {
			t.Errorf("grove sessions on a full disk left %s%s", db, s)
		}
	}
	os.Remove(filler)

	// index: the big root does not fit. What fits is kept (see
	// TestRun_DiskFullKeepsWhatFits); the old sessions answer as before.
	code, stdout, stderr := grove("--json", "index", "--root", small, "--root", big)
	mustDiskFull(t, "grove index", code, stdout, fsDir)
	if !strings.Contains(stdout, "grove index again") || strings.Contains(stdout, "migrate") {
		t.Errorf("grove index: %s %s; want the hint to name grove index, no migration message", stdout, stderr)
	}
	check("grove index", false)

	// watch: its first pass does not fit; it stops, as on any index failure.
	code, stdout, _ = grove("--json", "watch", "--root", small, "--root", big)
	mustDiskFull(t, "grove watch", code, stdout, fsDir)
	if !strings.Contains(stdout, "grove watch again") {
		t.Errorf("grove watch: %s; want the hint to name grove watch", stdout)
	}
	check("grove watch", false)

	// Without --json: one line, the code and the hint.
	code, _, stderr = grove("index", "--root", small, "--root", big)
	if code != 1 || !strings.Contains(stderr, "[disk_full]") || !strings.Contains(stderr, "free space on "+fsDir) {
		t.Errorf("grove index = %d, %q; want one disk_full line", code, stderr)
	}
	check("grove index (text)", false)

	// rebuild again, on the disk the index steps filled: the new index
	// cannot even be opened; what that open made is removed.
	code, stdout, _ = grove("--json", "rebuild", "--root", small, "--root", big)
	mustDiskFull(t, "grove rebuild on a full disk", code, stdout, fsDir)
	check("grove rebuild on a full disk", false)

	// export --out, append and repair on another disk with a few KB left.
	outDir := mustSmallFS(t, "1m")
	sess := testutil.MustWriteFile(t, outDir, "s.jsonl", []byte(`{"id":"a","parentId":null,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"hi"}}`+"\n"))
	torn := testutil.MustWriteFile(t, outDir, "torn.jsonl", []byte(`{"id":"a","parentId":null,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"hi"}}`+"\n"+`{"id":"b","par`))
	fill(t, outDir, 2<<10)
	fsDir = outDir
	out := filepath.Join(fsDir, "t.md")
	code, stdout, _ = grove("--json", "export", "--out", out, "5b7e")
	mustDiskFull(t, "grove export --out", code, stdout, fsDir)
	if !strings.Contains(stdout, " bytes could not be written") {
		t.Errorf("grove export --out: %s; want the bytes it wanted", stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("grove export left %s", out)
	}
	code, stdout, _ = grove("--json", "export", "--format", "jsonl", "--out", filepath.Join(fsDir, "f.jsonl"), "5b7e")
	mustDiskFull(t, "grove export --format jsonl --out", code, stdout, fsDir)
	check("grove export", false)
	if left, _ := filepath.Glob(filepath.Join(fsDir, ".*")); len(left) > 0 {
		t.Errorf("grove export left %v", left)
	}

	line := `{"id":"b","parentId":"a","timestamp":1767225601000,"type":"message","message":{"role":"user","content":"` + strings.Repeat("x", 64<<10) + `"}}` + "\n"
	in := testutil.MustWriteFile(t, dir, "stdin", []byte(line))
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	saved := os.Stdin
	os.Stdin = stdin // append reads os.Stdin; this test is not parallel
	var so, se bytes.Buffer
	code = run(ctx, []string{"grove", "--db", db, "--json", "append", sess}, &so, &se)
	os.Stdin = saved
	var app struct {
		Failed []struct{ Code, Message string }
	}
	json.Unmarshal(so.Bytes(), &app)
	if code != 1 || len(app.Failed) != 1 || app.Failed[0].Code != "disk_full" || !strings.Contains(app.Failed[0].Message, "free space on "+fsDir) {
		t.Errorf("grove append on a full disk = %d, %s %s; want the line failed with disk_full and a hint", code, so.String(), se.String())
	}

	code, stdout, _ = grove("--json", "repair", torn)
	mustDiskFull(t, "grove repair", code, stdout, fsDir)
	check("grove repair", false)
}

// TestRun_DiskFullKeepsWhatFits: on a 3 MB tmpfs, `grove index` and `grove
// watch` of twelve 1 MB sessions, which share write batches, answer
// disk_full but keep every file that fits (as many as one `grove index` per
// file would), say how many were not indexed, and leave the index whole
// with no WAL taking space (docs/indexing.md "A full disk").
func TestRun_DiskFullKeepsWhatFits(t *testing.T) {
	// The index's room is measured here: no kept store beside it (a full
	// disk while keeping is TestKeep_DiskFull, internal/ingest).
	t.Setenv("GROVE_KEEP", "0")
	testutil.SkipSlow(t, "./cmd/grove", "indexes 12 MB into a 3 MB tmpfs")
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	for i := range 12 {
		testutil.MustWriteFile(t, big, fmt.Sprintf("s%02d.jsonl", i), testutil.PiSession(1<<20, int64(i)))
	}
	for _, cmd := range [][]string{{"index", "--root", big}, {"watch", "--root", big}} {
		fsDir := mustSmallFS(t, "3m")
		db := filepath.Join(fsDir, "index.db")
		grove := groveOn(t, db)
		code, stdout, stderr := grove(append([]string{"--json"}, cmd...)...)
		mustDiskFull(t, "grove "+cmd[0], code, stdout, fsDir)
		if !strings.Contains(stdout, "grove "+cmd[0]+" again") {
			t.Errorf("grove %s: %s; want the hint to name grove %s", cmd[0], stdout, cmd[0])
		}
		mustWholeIndex(t, db, true)
		code, list, _ := grove("--json", "sessions")
		var got struct{ Sessions []struct{ Path string } }
		json.Unmarshal([]byte(list), &got)
		kept := len(got.Sessions)
		if code != 0 || kept == 0 || kept == 12 {
			t.Fatalf("after grove %s on a full disk: grove sessions = %d, %d sessions; want some of the 12 kept (%s %s)", cmd[0], code, kept, stdout, stderr)
		}
		if want := fmt.Sprintf("%d files indexed in this run, %d not indexed", kept, 12-kept); !strings.Contains(stdout, want) {
			t.Errorf("grove %s: %s; want it to say %q", cmd[0], stdout, want)
		}
		t.Logf("grove %s kept %d of 12 files", cmd[0], kept)
		if cmd[0] == "index" {
			// Its root is remembered, for grove rebuild: it holds sessions.
			if srcs, err := archive.ReadSourcesFile(db); err != nil || len(srcs) != 1 || srcs[0].Path != big {
				t.Errorf("after grove index on a full disk: %s lists %v, %v; want root %s", archive.SourcesPath(db), srcs, err, big)
			}
		}
	}
}

// wordsSession is a session of about size bytes of user messages of
// random words ("epsilon74606"): text the search index grows by about
// twice its size, as sessions of prose do.
func wordsSession(size int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	names := []string{"alpha", "gamma", "delta", "epsilon", "iota", "lambda", "mu", "xi", "omicron", "pi", "rho", "sigma", "tau", "theta"}
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":"words-%04d","timestamp":"2026-03-01T00:00:00.000Z","cwd":"/tmp/big"}`+"\n", seed)
	parent := "null"
	for i := 0; b.Len() < size; i++ {
		var text strings.Builder
		for range 200 {
			fmt.Fprintf(&text, "%s%d ", names[r.Intn(len(names))], r.Intn(100000))
		}
		fmt.Fprintf(&b, `{"type":"message","id":"w%d-%d","parentId":%s,"timestamp":"2026-03-01T00:%02d:%02d.000Z","message":{"role":"user","content":%q}}`+"\n",
			seed, i, parent, i/60%60, i%60, text.String())
		parent = fmt.Sprintf(`"w%d-%d"`, seed, i)
	}
	return []byte(b.String())
}

// TestRun_DiskFullLeavesDiskUsable: on 3 MB and 8 MB tmpfs, `grove index`
// of twelve 1 MB sessions of random words answers disk_full and leaves the
// index whole with no WAL, and room on the disk for a small file; run
// again, it counts the files kept as unchanged, not as not indexed (docs/indexing.md
// "A full disk": a committed WAL that could not be folded into the index
// would keep the disk 100% full).
func TestRun_DiskFullLeavesDiskUsable(t *testing.T) {
	testutil.SkipSlow(t, "./cmd/grove", "indexes 12 MB into 3 MB and 8 MB tmpfs")
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	for i := range 12 {
		testutil.MustWriteFile(t, big, fmt.Sprintf("s%02d.jsonl", i), wordsSession(1<<20, int64(i)))
	}
	for _, size := range []string{"3m", "8m"} {
		fsDir := mustSmallFS(t, size)
		db := filepath.Join(fsDir, "index.db")
		grove := groveOn(t, db)
		code, stdout, _ := grove("--json", "index", "--root", big)
		mustDiskFull(t, "grove index on "+size, code, stdout, fsDir)
		mustWholeIndex(t, db, true)
		if err := os.WriteFile(filepath.Join(fsDir, "probe.txt"), []byte("hello\n"), 0o600); err != nil {
			t.Fatalf("after grove index on a %s disk: cannot write a small file: %v", size, err)
		}
		os.Remove(filepath.Join(fsDir, "probe.txt"))
		_, list, _ := grove("--json", "sessions")
		var got struct{ Sessions []struct{ Path string } }
		json.Unmarshal([]byte(list), &got)
		kept := len(got.Sessions)
		t.Logf("%s: kept %d of 12", size, kept)
		code, stdout, _ = grove("--json", "index", "--root", big)
		mustDiskFull(t, "grove index again on "+size, code, stdout, fsDir)
		want := fmt.Sprintf("0 files indexed in this run, %d not indexed", 12-kept)
		if kept > 0 {
			want = fmt.Sprintf("0 files indexed in this run, %d unchanged, %d not indexed", kept, 12-kept)
		}
		if !strings.Contains(stdout, want) {
			t.Errorf("grove index again on %s: %s; want it to say %q", size, stdout, want)
		}
		mustWholeIndex(t, db, true)
	}
}

// TestRun_IndexSourcesFileWarns: when every file is indexed but the copy
// of the roots beside the index cannot be written (here a directory is in
// its way), grove index warns on stderr, prints its summary and exits 0:
// the roots are in the index's own table (archive.SourcesFileError).
func TestRun_IndexSourcesFileWarns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "index.db")
	small := filepath.Join(dir, "small")
	testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), small, "v3-tree.jsonl")
	testutil.MustWriteFile(t, archive.SourcesPath(db), "in-the-way", []byte("x"))
	grove := groveOn(t, db)
	code, stdout, stderr := grove("index", "--root", small)
	if code != 0 || !strings.Contains(stdout, "1 indexed") || !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, archive.SourcesPath(db)) {
		t.Fatalf("grove index with %s in the way = %d, %q %q; want exit 0, the summary, a warning naming the file", archive.SourcesPath(db), code, stdout, stderr)
	}
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("%s-wal is %d bytes after a successful grove index; want it checkpointed", db, fi.Size())
	}
}

// TestRun_DiskFullRepair: `grove repair` of a session file with a torn
// tail on a full disk backs up only the tail, so it works with room for
// the tail alone: the backup holds exactly the removed bytes and the file
// its committed prefix. With no room even for that, it refuses with
// disk_full, leaving the file untouched and no backup (SPEC §8 `repair`,
// docs/indexing.md "A full disk").
func TestRun_DiskFullRepair(t *testing.T) {
	fsDir := mustSmallFS(t, "1m")
	var b strings.Builder
	for i := 0; b.Len() < 200<<10; i++ {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"e%d"`, i-1)
		}
		fmt.Fprintf(&b, `{"id":"e%d","parentId":%s,"timestamp":1767225600000,"type":"message","message":{"role":"user","content":"%s"}}`+"\n", i, parent, strings.Repeat("x", 500))
	}
	committed := b.Len()
	b.WriteString(`{"id":"torn","parentId":"e0","timestamp":1767225600000,"type":"message","message":{"role":"user","content":"cut o`)
	data := []byte(b.String())
	torn := testutil.MustWriteFile(t, fsDir, "torn.jsonl", data)
	full := testutil.MustWriteFile(t, fsDir, "full.jsonl", data)
	grove := groveOn(t, filepath.Join(t.TempDir(), "index.db"))

	// Room for a page, not for a copy of the whole file.
	filler := fill(t, fsDir, 8<<10)
	code, stdout, stderr := grove("--json", "repair", torn)
	var plan struct {
		TruncatedAt  int64 `json:"truncated_at"`
		RemovedBytes int64 `json:"removed_bytes"`
		Backup       string
	}
	if err := json.Unmarshal([]byte(stdout), &plan); code != 0 || err != nil || plan.TruncatedAt != int64(committed) || plan.RemovedBytes != int64(len(data)-committed) {
		t.Fatalf("grove repair on a full disk = %d, %s %s; want the tail of %d bytes at %d removed", code, stdout, stderr, len(data)-committed, committed)
	}
	if got, _ := os.ReadFile(plan.Backup); !bytes.Equal(got, data[committed:]) {
		t.Fatalf("the backup %s holds %q; want the removed bytes %q", plan.Backup, got, data[committed:])
	}
	if got, _ := os.ReadFile(torn); !bytes.Equal(got, data[:committed]) {
		t.Fatalf("after grove repair %s is %d bytes; want its committed prefix of %d", torn, len(got), committed)
	}

	// No room at all.
	os.Remove(filler)
	fill(t, fsDir, 0)
	code, stdout, _ = grove("--json", "repair", full)
	mustDiskFull(t, "grove repair with no room", code, stdout, fsDir)
	if got, _ := os.ReadFile(full); !bytes.Equal(got, data) {
		t.Fatalf("grove repair with no room changed %s", full)
	}
	if left, _ := filepath.Glob(full + ".*.bak"); len(left) > 0 {
		t.Fatalf("grove repair with no room left %v", left)
	}
}
