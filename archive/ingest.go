package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// IndexSummary is the answer of `grove index` (SPEC §8, plus the fields
// of an incremental refresh: README "Keeping the index current").
type IndexSummary struct {
	Files     int   `json:"files"`      // session files found
	Indexed   int   `json:"indexed"`    // files read and stored, whole or from their committed length
	Appended  int   `json:"appended"`   // of those, files read only from their committed length (grown by appending)
	Unchanged int   `json:"unchanged"`  // files skipped because size, mtime, device and inode match the index
	Damaged   int   `json:"damaged"`    // files whose state is damaged or needs-repair
	Entries   int   `json:"entries"`    // entries stored by this run
	Removed   int   `json:"removed"`    // sessions dropped because their file is gone
	BytesRead int64 `json:"bytes_read"` // bytes of session files read
	// Failed lists the files, directories and roots that could not be read;
	// everything else was indexed. Never nil.
	Failed []Failure `json:"failed"`
	// Unsupported lists the files found that grove lists but cannot read
	// (a Codex *.jsonl.zst: code unsupported_compression, with a hint),
	// every run that finds them, whether read this run or unchanged; they
	// are no failure (SPEC §3.5). Never nil.
	Unsupported []Failure `json:"unsupported"`
	// DefaultRoots are the agents' default roots the run read, when no
	// root was named (SPEC §8 `index` row); set by the command, left out
	// of the JSON when empty.
	DefaultRoots []DefaultRoot `json:"default_roots,omitempty"`
}

// DefaultRoot is one agent's default session root (SPEC §8): the dialect
// of the files grove expects there and the directory.
type DefaultRoot struct {
	Dialect jsonl.Dialect `json:"dialect"`
	Path    string        `json:"path"`
}

// add adds o's counts and failures to s.
func (s *IndexSummary) add(o IndexSummary) {
	s.Files += o.Files
	s.Indexed += o.Indexed
	s.Appended += o.Appended
	s.Unchanged += o.Unchanged
	s.Damaged += o.Damaged
	s.Entries += o.Entries
	s.Removed += o.Removed
	s.BytesRead += o.BytesRead
	s.Failed = append(s.Failed, o.Failed...)
	s.Unsupported = append(s.Unsupported, o.Unsupported...)
}

// Failure is a file, directory or root that `grove index` could not read.
type Failure struct {
	Path    string    `json:"path"`
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
	Hint    string    `json:"hint,omitempty"` // what to do about it, when there is something
}

func failureOf(path string, err error) Failure {
	var je *errs.Error
	if errors.As(err, &je) {
		msg := je.Message
		if msg == "" && je.Err != nil {
			msg = je.Err.Error()
		}
		return Failure{Path: path, Code: je.Code, Message: msg}
	}
	return Failure{Path: path, Code: errs.CodeIO, Message: errMsg(err)}
}

// IndexOptions say what `grove index` reads.
type IndexOptions struct {
	Roots []string // directories searched recursively for *.jsonl
	// Files are single files, indexed whatever their name. One that is gone
	// but indexed leaves the index.
	Files []string
	Force bool // read every file whole, even those that look unchanged or appended to
	// Progress, when set, is called after each file read (not for
	// unchanged ones) and once before the first.
	Progress func(Progress)
	// Busy, when set, is called once if another grove holds the index's
	// lock, with what the lock file says of it; Index then waits for it.
	// When nil, Index does not wait: it fails with index_busy.
	Busy func(holder string)
	// whole is Rebuild's: the new index is kept only whole, so a full disk
	// ends the run at once, without indexing the batch's files one by one.
	whole bool
}

// Progress is how far an Index run is. Only files that changed count.
type Progress struct {
	Files, FilesTotal int   // changed files read so far, and in all
	Bytes, BytesTotal int64 // bytes of them to read so far, and in all (whole files, or what was appended)
	Path              string
}

// FileStat is what the index remembers of a file to tell whether it changed.
type FileStat struct {
	Size, MtimeNs, Dev, Ino int64
	Regular                 bool
}

// Stat returns the FileStat of path.
func Stat(path string) (FileStat, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileStat{}, err
	}
	st := FileStat{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Regular: fi.Mode().IsRegular()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Dev, st.Ino = int64(sys.Dev), int64(sys.Ino)
	}
	return st, nil
}

func sameStat(s *index.Session, st FileStat) bool {
	return s.FileSize == st.Size && s.FileMtimeNs == st.MtimeNs && s.FileDev == st.Dev && s.FileIno == st.Ino
}

// batchFiles and batchBytes bound what one write transaction of Index
// holds: files, and bytes read from them. Readers see each file's session
// wholly before or after, whatever the batch.
const (
	batchFiles = 256
	batchBytes = 8 << 20
)

// racy reports whether s was indexed so soon after its file's last change
// that its stat cannot be trusted (index.RacyWindowMs): the next refresh
// looks at the file's bytes too.
func racy(s *index.Session) bool {
	return s.IndexedAtMs-s.FileMtimeNs/1e6 < index.RacyWindowMs
}

// FindSessionFiles returns every session file name under root that is
// not a directory, sorted (isSessionName: *.jsonl but a Codex or Claude
// home's history files, and *.jsonl.zst without a .jsonl sibling, SPEC
// §3.5): regular files, symlinks, and also FIFOs or broken
// links, so that reading them reports why they cannot be read instead of
// leaving them out in silence. A root that is itself a symlink is followed;
// symlinked directories below it are not (no loops). Unreadable directories
// are returned in skipped.
func FindSessionFiles(root string) (files []string, skipped []Failure, err error) {
	files, _, skipped, err = findSessionFiles(root)
	return files, skipped, err
}

// findSessionFiles is FindSessionFiles, also saying which of the files are
// symlinks: below a root with symlinks resolved, only those can have a
// real path other than their name.
func findSessionFiles(root string) (files []string, links map[string]bool, skipped []Failure, err error) {
	if _, err := os.Stat(root); err != nil {
		return nil, nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			skipped = append(skipped, Failure{Path: p, Code: errs.CodeIO, Message: "cannot read directory: " + errMsg(err)})
			return nil
		}
		if d.IsDir() || !isSessionName(filepath.Dir(p), d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return nil // a symlinked directory named *.jsonl: not followed
			}
			if links == nil {
				links = map[string]bool{}
			}
			links[p] = true
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files, links, skipped, err
}

// Index brings the index up to date with the session files of opts (SPEC
// §6; README "Keeping the index current"), each file under its own
// savepoint, small files sharing a transaction (index.Batch), holding the
// index's lock (see Lock) throughout. On Ctrl-C the files finished so far
// are committed. A file whose size, mtime, device and inode match the index
// costs one stat; one that grew by appending is read from its
// committed length; any other change reads it whole. Sessions whose files
// under one of the roots, or named in Files, are gone leave the index. A
// root, directory or file that cannot be read is listed in Failed and the
// rest is indexed; a damaged file is no failure (its diagnostics are
// stored). The error is for the index itself failing, the lock not being
// had, or ctx ending (the summary then counts what was done). On a full
// disk the files that fit one per transaction are kept, and the error is a
// disk_full *jsonl.Error without a hint (index.DiskFull adds the command's)
// counting the files indexed and not indexed (README "A full disk").
func (a *Archive) Index(ctx context.Context, opts IndexOptions) (IndexSummary, error) {
	sum := IndexSummary{Failed: []Failure{}, Unsupported: []Failure{}}
	unlock, err := a.Lock(ctx, opts.Busy)
	if err != nil {
		return sum, err
	}
	defer unlock()
	// With the lock held no rebuild runs: a half-built index beside this
	// one was left by a rebuild that was killed.
	if _, err := os.Lstat(RebuildPath(a.db.File())); err == nil {
		removeIndexFiles(RebuildPath(a.db.File()))
	}
	// One file is one session, however it is reached (SPEC §3.3): each
	// name is resolved to its real path, and a file met again under another
	// name (a hard link) is left out by device and inode below.
	seen := map[string]bool{}
	var files, gone, aliases []string
	add := func(name string, mayBeLink bool) {
		real := name
		if mayBeLink {
			if r, err := filepath.EvalSymlinks(name); err == nil {
				real = r
			}
		}
		if real != name {
			aliases = append(aliases, name) // a symlink: its old row, if any, goes
		}
		if !seen[real] {
			seen[real] = true
			files = append(files, real)
		}
	}
	for _, f := range opts.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return sum, err
		}
		add(abs, true)
	}
	var roots []string
	for _, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return sum, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		found, links, skipped, err := findSessionFiles(abs)
		if err != nil {
			sum.Failed = append(sum.Failed, RootFailure(abs, err))
			continue
		}
		sum.Failed = append(sum.Failed, skipped...)
		roots = append(roots, abs)
		for _, f := range found {
			add(f, links[f]) // the root's real path, walked without following links: only a link can be another name
		}
	}
	known, notOK, err := a.db.FileStates(ctx)
	if err != nil {
		return sum, err
	}
	// First stat everything (in parallel: 10,000 stats are most of a
	// no-op refresh), so that progress knows how much is to read.
	stats := statAll(ctx, files)
	type work struct {
		path string
		st   FileStat
		old  *index.Session
		cost int64 // bytes expected to be read
	}
	var todo []work
	var total int64
	// Of the names of one file (hard links), the one the index holds wins,
	// else the first.
	owner := map[[2]int64]string{}
	for i, f := range files {
		if st := stats[i].st; stats[i].err == nil && st.Ino != 0 {
			id := [2]int64{st.Dev, st.Ino}
			_, isKnown := known[f]
			if cur, ok := owner[id]; !ok {
				owner[id] = f
			} else if _, curKnown := known[cur]; isKnown && !curKnown {
				owner[id] = f
			}
		}
	}
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		st, err := stats[i].st, stats[i].err
		k, isKnown := known[f]
		if err == nil && st.Ino != 0 && owner[[2]int64{st.Dev, st.Ino}] != f {
			if isKnown {
				gone = append(gone, f) // a second name of a file indexed under another
			}
			continue
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && isKnown {
				gone = append(gone, f) // a named file that was indexed is gone
				continue
			}
			sum.Files++
			sum.Failed = append(sum.Failed, Failure{Path: f, Code: errs.CodeIO, Message: "cannot read session file: " + errMsg(err)})
			continue
		}
		sum.Files++
		if IsCompressed(f) {
			sum.Unsupported = append(sum.Unsupported, unsupportedFailure(f))
		}
		if isKnown && !opts.Force && k == index.StatKey(st.Size, st.MtimeNs, st.Dev, st.Ino) {
			sum.Unchanged++
			if notOK[f] && !IsCompressed(f) {
				sum.Damaged++
			}
			continue
		}
		var old *index.Session
		if isKnown {
			if old, err = a.db.SessionByPath(ctx, f); err != nil {
				return sum, err
			}
		}
		cost := st.Size
		if old != nil && !opts.Force && old.FirstMessage != nil && old.Resumable && old.FileIno == st.Ino && st.Size >= old.CommittedLen && st.Size != old.FileSize {
			cost = st.Size - old.CommittedLen
		}
		todo = append(todo, work{path: f, st: st, old: old, cost: cost})
		total += cost
	}
	p := Progress{FilesTotal: len(todo), BytesTotal: total}
	if opts.Progress != nil && len(todo) > 0 {
		opts.Progress(p)
	}
	// Files share a transaction until it holds batchBytes or batchFiles
	// files (each under its own savepoint): a commit costs more than a
	// small file. On a full disk the batch is rolled back and its files
	// are indexed again one per transaction, the WAL checkpointed into the
	// index and truncated after each (the disk then holds the index and
	// one file's WAL, as one `grove index` per file would), so the index
	// keeps every file that fits; the first file that does not fit alone
	// ends the run with a disk_full error counting the files not indexed
	// (README "A full disk").
	var b *index.Batch
	var batch []work      // the files in b, to index again alone on a full disk
	var bsum IndexSummary // their counts, added to sum when b commits
	var batchSize int64
	alone := false
	defer func() {
		if b != nil {
			b.Rollback()
		}
	}()
	// commit commits b; on an error b is gone (rolled back) and batch
	// still names its files.
	commit := func() error {
		if b == nil {
			return nil
		}
		err := b.Commit()
		b = nil
		if err != nil {
			return err
		}
		sum.add(bsum)
		if alone {
			a.db.Checkpoint(ctx) // best effort: a WAL that stays is still whole
		}
		batch, bsum, batchSize = nil, IndexSummary{}, 0
		return nil
	}
	// rollback abandons b on a full disk and returns its files, uncounting
	// their progress. The WAL the failed transaction grew to fill the disk
	// is truncated (checkpointed first: nothing committed is lost), giving
	// its room back to the files indexed one by one next.
	rollback := func() []work {
		if b != nil {
			b.Rollback()
		}
		a.db.Checkpoint(ctx) // best effort: a WAL that stays is still whole
		redo := batch
		for _, w := range redo {
			p.Files--
			p.Bytes -= w.cost
		}
		b, batch, bsum, batchSize = nil, nil, IndexSummary{}, 0
		return redo
	}
	// full is the disk_full error that ends the run, left files not indexed.
	full := func(err error, left int) error {
		de, _ := index.DiskFull(a.db.File(), err, 0, "").(*errs.Error)
		if de == nil || opts.whole {
			return err
		}
		unchanged := ""
		if sum.Unchanged > 0 { // indexed by an earlier run, and still so
			unchanged = fmt.Sprintf(", %d unchanged", sum.Unchanged)
		}
		de.Message += fmt.Sprintf("; %s indexed in this run%s, %d not indexed (run the command again once there is room)",
			count(sum.Indexed, "file", "files"), unchanged, left)
		de.Hint = "" // the command's name is the caller's (index.DiskFull)
		return de
	}
	queue := slices.Clone(todo)
	for {
		if len(queue) == 0 {
			err := commit()
			if err != nil && index.IsDiskFull(err) && !alone && !opts.whole {
				alone = true // the last batch did not fit: its files one by one
				queue = rollback()
				continue
			}
			if err != nil && index.IsDiskFull(err) {
				return sum, full(err, len(batch))
			}
			if err != nil {
				return sum, err
			}
			break
		}
		w := queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			commit() // keep the files finished so far
			return sum, err
		}
		if b != nil && w.cost >= batchBytes/2 {
			if err := commit(); err != nil { // a big file starts its own batch
				if index.IsDiskFull(err) && !opts.whole {
					alone = true
					queue = append(rollback(), append([]work{w}, queue...)...)
					continue
				}
				return sum, err
			}
		}
		if b == nil {
			var err error
			if b, err = a.db.BeginBatch(ctx); err != nil {
				if index.IsDiskFull(err) {
					return sum, full(err, 1+len(queue))
				}
				return sum, err
			}
		}
		var r FileResult
		if IsCompressed(w.path) {
			r, err = a.storeCompressed(ctx, b, w.path, w.st)
		} else {
			r, err = a.refreshFile(ctx, b, w.path, w.st, w.old, opts.Force)
		}
		dead := b.Dead() // the file failed first in its batch: nothing else was in it
		if dead {
			b = nil
		}
		if ctx.Err() != nil {
			sum.BytesRead += r.BytesRead
			commit() // this file was rolled back; keep those before it
			return sum, ctx.Err()
		}
		if err != nil && index.IsDiskFull(err) {
			if alone || len(batch) == 0 || opts.whole {
				left := 1 + len(queue) + len(rollback())
				return sum, full(err, left)
			}
			// SQLite may have rolled back the whole transaction: its files
			// again, one per transaction.
			alone = true
			queue = append(rollback(), append([]work{w}, queue...)...)
			continue
		}
		one := IndexSummary{BytesRead: r.BytesRead}
		if err != nil {
			if errs.CodeOf(err) != errs.CodeIO {
				return sum, err // the index itself failed
			}
			one.Failed = append(one.Failed, failureOf(w.path, err))
		} else {
			switch r.Change {
			case Unchanged:
				one.Unchanged++
			case Appended:
				one.Appended++
				one.Indexed++
				one.Entries += r.Entries
			case Whole:
				one.Indexed++
				one.Entries += r.Entries
			}
			if r.State != jsonl.StateOK && !IsCompressed(w.path) {
				one.Damaged++
			}
		}
		if dead { // nothing to commit: the failure stands
			sum.add(one)
		} else {
			bsum.add(one)
			batch = append(batch, w)
			batchSize += w.cost
		}
		p.Files++
		p.Bytes += w.cost
		p.Path = w.path
		if opts.Progress != nil {
			opts.Progress(p)
		}
		if b != nil && (alone || len(batch) >= batchFiles || batchSize >= batchBytes) {
			if err := commit(); err != nil {
				if index.IsDiskFull(err) && !alone && !opts.whole {
					alone = true
					queue = append(rollback(), queue...)
					continue
				}
				if index.IsDiskFull(err) {
					return sum, full(err, len(rollback())+len(queue))
				}
				return sum, err
			}
		}
	}
	// Sessions whose file under an indexed root is gone leave the index.
	// So do rows an older grove stored under a symlink's name: the file is
	// indexed under its real path now.
	// So does a compressed rollout whose plain .jsonl sibling is there
	// now: that one is the session (FORMATS.md §2.1).
	for p := range known {
		if !seen[p] && underAny(p, roots) {
			if fi, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink != 0) {
				gone = append(gone, p)
			} else if IsCompressed(p) && seen[strings.TrimSuffix(p, ".zst")] {
				gone = append(gone, p)
			}
		}
	}
	for _, p := range aliases {
		if _, isKnown := known[p]; isKnown && !seen[p] && !slices.Contains(gone, p) {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	gone = slices.Compact(gone)
	if len(gone) > 0 {
		if b, err = a.db.BeginBatch(ctx); err != nil {
			return sum, err
		}
		for _, p := range gone {
			if err := b.Remove(ctx, p); err != nil {
				return sum, err
			}
		}
		if err := commit(); err != nil {
			return sum, err
		}
		sum.Removed += len(gone)
	}
	return sum, nil
}

// underAny reports whether the clean absolute path p is below one of the
// clean absolute roots.
func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if r == "/" || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

func errMsg(err error) string {
	if errors.Is(err, syscall.ELOOP) {
		return "symlink loop (a link that leads back to itself)"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// RootFailure says why the session root root cannot be read, from the
// error of statting or walking it: "no such directory", "symlink loop",
// "not a directory", or the system's words (SPEC §8 `index`).
func RootFailure(root string, err error) Failure {
	msg := errMsg(err)
	switch {
	case errors.Is(err, syscall.ELOOP):
	case errors.Is(err, fs.ErrNotExist):
		msg = "no such directory"
	case errors.Is(err, syscall.ENOTDIR):
		msg = "not a directory"
	}
	return Failure{Path: root, Code: errs.CodeIO, Message: "cannot read session root: " + msg}
}

type statResult struct {
	st  FileStat
	err error
}

// statAll stats files with a few goroutines; results are in files' order.
func statAll(ctx context.Context, files []string) []statResult {
	out := make([]statResult, len(files))
	const workers = 4
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(files); i += workers {
				if ctx.Err() != nil {
					return
				}
				out[i].st, out[i].err = Stat(files[i])
			}
		}(w)
	}
	wg.Wait()
	return out
}
