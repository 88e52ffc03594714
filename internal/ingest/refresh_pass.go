package ingest

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

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/kept"
	"github.com/grove-sessions/grove/internal/plural"
	"github.com/grove-sessions/grove/jsonl"
)

// refresh brings the index up to date with the session files of opts
// (SPEC §6; docs/indexing.md "Keeping the index current"), each file under its own savepoint, small files sharing a
// transaction (index.Batch), holding the index's lock (see Lock)
// throughout. On Ctrl-C the files finished so far are committed. A file
// whose size, mtime, device and inode match the index costs one stat; one
// that grew by appending is read from its committed length; any other
// change reads it whole. Sessions whose files under one of the roots, or
// named in Files, are gone leave the index. A root, directory or file that
// cannot be read is listed in Failed and the rest is indexed; a damaged
// file is no failure (its diagnostics are stored). The error is for the
// index itself failing, the lock not being had, or ctx ending (the summary
// then counts what was done). On a full disk the files that fit one per
// transaction are kept, and the error is a disk_full *errs.Error without a
// hint (index.DiskFull adds the command's) counting the files indexed and
// not indexed (docs/indexing.md "A full disk").
func (ix *Indexer) refresh(ctx context.Context, opts IndexOptions) (IndexSummary, error) {
	sum := IndexSummary{Failed: []Failure{}, Unsupported: []Failure{}}
	unlock, err := ix.Lock(ctx, opts.Busy)
	if err != nil {
		return sum, err
	}
	defer unlock()
	// Rows written before schema 9 take this grove's source; under the
	// lock, as every write of the index is.
	if err := ix.db.ClaimSources(ctx); err != nil {
		return sum, err
	}
	// With the lock held no rebuild runs: the files of a half-built index
	// beside this one (or its lock and sources, once it was swapped in)
	// were left by a rebuild that was killed.
	removeIndexFiles(RebuildPath(ix.db.File())) // best effort: each is named again next run
	// The index's file states are read while the roots are walked: one
	// is SQLite's work, the other the file system's (a no-op refresh of
	// 10,000 files is mostly these two).
	var known map[string]int64
	var notOK map[string]bool
	var forgotten map[string]index.Forgotten
	statesDone := make(chan error, 1)
	go func() {
		var err error
		known, notOK, err = ix.db.FileStates(ctx)
		if err == nil {
			forgotten, err = ix.db.ForgottenFiles(ctx)
		}
		statesDone <- err
	}()
	set, err := gather(opts, &sum)
	if serr := <-statesDone; err == nil {
		err = serr
	}
	if err != nil {
		return sum, err
	}
	set.forgotten = forgotten
	if len(opts.Files) == 0 {
		if err := ix.addOutside(ctx, set, known); err != nil {
			return sum, err
		}
	}
	todo, err := ix.plan(ctx, set, known, notOK, opts.Force, &sum)
	if err != nil {
		return sum, err
	}
	run := &ingestRun{ix: ix, ctx: ctx, opts: opts, sum: &sum}
	if err := run.all(todo); err != nil {
		return sum, err
	}
	if err := ix.removeGone(ctx, set.gone(known), &sum); err != nil {
		return sum, err
	}
	return sum, ix.adoptLeftVersions(ctx) // the earlier versions of files rewritten (SPEC §11)
}

// fileSet is what one refresh reads: every session file of its roots and
// files, each by its real path once (SPEC §3.3: one file is one session,
// however it is reached).
type fileSet struct {
	files   []string        // real paths, in the order found
	seen    map[string]bool // files, as a set
	aliases []string        // symlink names met: their old rows, if any, go
	roots   []string        // the readable roots, absolute and resolved
	missing []string        // files known to the index that are gone or are second names (hard links)
	outside map[string]bool // files added by addOutside: counted only when read
	// forgotten are the files `grove forget` removed (forget.go), by path:
	// left out while their committed bytes are unchanged.
	forgotten map[string]index.Forgotten
}

// gather finds opts' files: named files resolved to their real paths, and
// the session files below each root (FindSessionFiles). Roots and
// directories that cannot be read go into sum.Failed.
func gather(opts IndexOptions, sum *IndexSummary) (*fileSet, error) {
	set := &fileSet{seen: map[string]bool{}, outside: map[string]bool{}}
	var folders []string // symlinked directories below the roots
	add := func(name string, mayBeLink bool) {
		real := name
		if mayBeLink {
			if r, err := filepath.EvalSymlinks(name); err == nil {
				real = r
			}
		}
		if real != name {
			set.aliases = append(set.aliases, name)
		}
		if !set.seen[real] {
			set.seen[real] = true
			set.files = append(set.files, real)
		}
	}
	for _, f := range opts.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		add(abs, true)
	}
	for _, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		found, links, skipped, linked, err := findSessionFiles(abs)
		if err != nil {
			sum.Failed = append(sum.Failed, RootFailure(abs, err))
			continue
		}
		sum.Failed = append(sum.Failed, skipped...)
		set.roots = append(set.roots, abs)
		folders = append(folders, linked...)
		for _, f := range found {
			add(f, links[f]) // the root's real path, walked without following links: only a link can be another name
		}
	}
	sum.Unsupported = append(sum.Unsupported, notFollowed(folders, set.roots)...)
	return set, nil
}

// notFollowed says of each symlinked directory found below a root that
// it was not followed, unless where it leads is a root or below one (its
// sessions are read there): a folder linked into an agent's folder is
// never left out in silence (code not_followed, no failure).
func notFollowed(folders, roots []string) []Failure {
	var out []Failure
	for _, l := range folders {
		real, err := filepath.EvalSymlinks(l)
		if err == nil && (slices.Contains(roots, real) || underAny(real, roots)) {
			continue
		}
		if err != nil {
			if _, serr := os.Stat(l); serr != nil {
				err = serr // says "symlink loop" where EvalSymlinks says "too many links"
			}
			out = append(out, Failure{Path: l, Code: errs.CodeNotFollowed, Message: "a symlink that leads nowhere (" + errs.PathReason(err) + "), not followed",
				Hint: "if it should lead to a folder of sessions, mend it, or give that folder as --root"})
			continue
		}
		out = append(out, Failure{Path: l, Code: errs.CodeNotFollowed, Message: "a symlink to a folder (" + real + "), not followed",
			Hint: "to index the sessions in it, name it: grove index --root " + l})
	}
	return out
}

// gone returns the indexed files that leave the index: those plan found
// gone or second names; those under a root that are gone now, and those
// under none whose folder is there without them (goneOutside); rows an
// older grove stored under a symlink's name (the file is indexed under its
// real path now); and a compressed rollout whose plain .jsonl sibling is
// there now, which is the session (FORMATS.md §2.1). Sorted, each once.
func (set *fileSet) gone(known map[string]int64) []string {
	gone := set.missing
	for p := range known {
		if set.seen[p] {
			continue
		}
		if !underAny(p, set.roots) {
			if goneOutside(p) {
				gone = append(gone, p)
			}
			continue
		}
		if fi, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink != 0) {
			gone = append(gone, p)
		} else if IsCompressed(p) && set.seen[strings.TrimSuffix(p, ".zst")] {
			gone = append(gone, p)
		}
	}
	for _, p := range set.aliases {
		if _, isKnown := known[p]; isKnown && !set.seen[p] && !slices.Contains(gone, p) {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	return slices.Compact(gone)
}

// addOutside adds to set the session files the index holds below none
// of set's roots (named once, `grove index FILE`, or below a root not
// named this time) that are there, and the files of gone sessions that
// are there again, wherever they are: a run over roots brings every
// session of the index up to date, as it does those below its roots (a
// file changed is read, one that came back is no longer gone). Each costs
// a stat when unchanged. Errors are the database's.
func (ix *Indexer) addOutside(ctx context.Context, set *fileSet, known map[string]int64) error {
	gone, err := ix.db.GoneSessions(ctx)
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(known)+len(gone))
	for p := range known {
		paths = append(paths, p)
	}
	for _, g := range gone {
		if _, _, earlier := kept.SplitVersion(g.Path); !earlier {
			paths = append(paths, g.Path)
		}
	}
	slices.Sort(paths)
	for _, p := range slices.Compact(paths) {
		if set.seen[p] || underAny(p, set.roots) {
			continue // found by the walk, or walked and not found: gone
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			set.seen[p], set.outside[p] = true, true
			set.files = append(set.files, p)
		}
	}
	return nil
}

// goneOutside reports whether the indexed file p, below none of the run's
// roots (a file named once, `grove index FILE`, or a root not named this
// time), is gone: its folder is there and it is not. A folder that is gone
// too (a disk not mounted) says nothing of the file.
func goneOutside(p string) bool {
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	fi, err := os.Stat(filepath.Dir(p))
	return err == nil && fi.IsDir()
}

// work is one file a refresh reads.
type work struct {
	path string
	st   FileStat
	old  *index.Session
	cost int64 // bytes expected to be read: the file, or what was appended
	// unforget drops the file's forgotten record in the read's batch: its
	// committed bytes changed since `grove forget` (SPEC §11).
	unforget bool
	// outside: a file below none of the run's roots (addOutside), counted
	// in the summary only when its read finds it changed.
	outside bool
}

// plan stats every file of set (in parallel: 10,000 stats are most of a
// no-op refresh, and progress needs the total first) and returns those to
// read. Unchanged files, unreadable ones and compressed rollouts are
// counted in sum; files gone, and second names of one file (hard links:
// the name the index holds wins, else the first), go to set.missing when
// the index knows them.
func (ix *Indexer) plan(ctx context.Context, set *fileSet, known map[string]int64, notOK map[string]bool, force bool, sum *IndexSummary) ([]work, error) {
	stats := statAll(ctx, set.files)
	owner := map[[2]int64]string{}
	for i, f := range set.files {
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
	var todo []work
	for i, f := range set.files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err := stats[i].st, stats[i].err
		k, isKnown := known[f]
		if err == nil && st.Ino != 0 && owner[[2]int64{st.Dev, st.Ino}] != f {
			if isKnown {
				set.missing = append(set.missing, f) // a second name of a file indexed under another
			}
			continue
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && isKnown {
				set.missing = append(set.missing, f) // a named file that was indexed is gone
				continue
			}
			sum.Files++
			sum.Failed = append(sum.Failed, Failure{Path: f, Code: errs.CodeIO, Message: "cannot read session file: " + errs.PathReason(err)})
			continue
		}
		unforget := false
		if fg, ok := set.forgotten[f]; ok && !isKnown {
			if forgottenUnchanged(f, st, fg) {
				sum.Forgotten++
				continue
			}
			unforget = true // changed since: read again, its record dropped with the read
		}
		// A file outside the run's roots (addOutside) is counted only when
		// it is read, and --force does not reach it.
		out := set.outside[f]
		if isKnown && (!force || out) && k == index.StatKey(st.Size, st.MtimeNs, st.Dev, st.Ino) {
			if !out {
				sum.Files++
				sum.Unchanged++
				if IsCompressed(f) {
					sum.Unsupported = append(sum.Unsupported, unsupportedFailure(f))
				} else if notOK[f] {
					sum.Damaged++
				}
			}
			continue
		}
		if !out {
			sum.Files++ // one outside is counted once its read finds it changed
			if IsCompressed(f) {
				sum.Unsupported = append(sum.Unsupported, unsupportedFailure(f))
			}
		}
		var old *index.Session
		if isKnown {
			if old, err = ix.db.SessionByPath(ctx, f); err != nil {
				return nil, err
			}
		}
		cost := st.Size
		if !force && appendable(old, st, st.Size) {
			cost = st.Size - old.CommittedLen
		}
		todo = append(todo, work{path: f, st: st, old: old, cost: cost, unforget: unforget, outside: out})
	}
	return todo, nil
}

// appendable reports whether the file old was indexed from, now of stat st
// and size bytes, may have grown by appending (SPEC §6): the same device
// and inode, a read that may go on at its committed length, and a size at
// least that and not the old one (the same size with a new mtime is an
// edit in place, or a touch). The bytes decide: the head and tail
// fingerprints must still match (see refreshFile). A session indexed
// before schema 5 has no first message and is read whole (migration 5).
func appendable(old *index.Session, st FileStat, size int64) bool {
	return old != nil && old.FirstMessage != nil && old.Resumable && old.FileDev == st.Dev && old.FileIno == st.Ino &&
		size >= old.CommittedLen && size != old.FileSize
}

// removeGone drops the sessions of gone files in one transaction, but
// those whose committed bytes are kept, which are marked gone (goneKept).
func (ix *Indexer) removeGone(ctx context.Context, gone []string, sum *IndexSummary) error {
	if len(gone) == 0 {
		return nil
	}
	b, err := ix.db.BeginBatch(ctx)
	if err != nil {
		return err
	}
	defer b.Rollback()
	marked := 0
	for _, p := range gone {
		kept, err := ix.goneKept(ctx, p)
		if err != nil {
			return err
		}
		if kept {
			err, marked = b.MarkGone(ctx, p), marked+1
		} else {
			err = b.Remove(ctx, p)
		}
		if err != nil {
			return err
		}
	}
	if err := b.Commit(); err != nil {
		return err
	}
	sum.Removed += len(gone) - marked
	sum.Gone += marked
	return nil
}

// ingestRun reads a refresh's files into batches. Files share a
// transaction until it holds batchBytes or batchFiles files (each under
// its own savepoint): a commit costs more than a small file. On a full
// disk the batch is rolled back and its files are indexed again one per
// transaction, the WAL checkpointed into the index and truncated after
// each (the disk then holds the index and one file's WAL, as one `grove
// index` per file would), so the index keeps every file that fits; the
// first file that does not fit alone ends the run with a disk_full error
// counting the files not indexed (docs/indexing.md "A full disk").
type ingestRun struct {
	ix   *Indexer
	ctx  context.Context
	opts IndexOptions
	sum  *IndexSummary
	p    Progress
	pre  *prefetcher // files read ahead (prefetch.go)

	b         *index.Batch
	batch     []work       // the files in b, to index again alone on a full disk
	bsum      IndexSummary // their counts, added to sum when b commits
	batchSize int64
	alone     bool // one file per transaction, after a full disk
}

// all reads todo, in order.
func (r *ingestRun) all(todo []work) error {
	for _, w := range todo {
		r.p.BytesTotal += w.cost
	}
	r.p.FilesTotal = len(todo)
	if r.opts.Progress != nil && len(todo) > 0 {
		r.opts.Progress(r.p)
	}
	defer func() {
		if r.b != nil {
			r.b.Rollback()
		}
	}()
	if !r.opts.inline {
		r.pre = startPrefetch(r.ctx, todo, r.opts.Force)
	}
	defer r.pre.stop()
	queue := slices.Clone(todo)
	for {
		if len(queue) == 0 {
			err := r.commit()
			if err != nil && index.IsDiskFull(err) && !r.alone && !r.opts.whole {
				r.alone = true // the last batch did not fit: its files one by one
				queue = r.rollback()
				continue
			}
			if err != nil && index.IsDiskFull(err) {
				return r.full(err, len(r.rollback())) // its -wal truncated too
			}
			return err
		}
		w := queue[0]
		queue = queue[1:]
		if err := r.ctx.Err(); err != nil {
			r.commit() // keep the files finished so far
			return err
		}
		if r.b != nil && w.cost >= batchBytes/2 {
			if err := r.commit(); err != nil { // a big file starts its own batch
				if index.IsDiskFull(err) && !r.opts.whole {
					r.alone = true
					queue = append(r.rollback(), append([]work{w}, queue...)...)
					continue
				}
				return err
			}
		}
		if r.b == nil {
			var err error
			if r.b, err = r.ix.db.BeginBatch(r.ctx); err != nil {
				if index.IsDiskFull(err) {
					return r.full(err, 1+len(queue))
				}
				return err
			}
			if r.alone {
				// Room for the fold is asked of the page cache too: a
				// small one leaves more for the file.
				if err := r.b.Lean(); err != nil {
					return err
				}
			}
		}
		redo, err := r.one(w, queue)
		if err != nil {
			return err
		}
		if redo != nil {
			queue = redo
			continue
		}
		if r.b != nil && (r.alone || len(r.batch) >= batchFiles || r.batchSize >= batchBytes) {
			if err := r.commit(); err != nil {
				if index.IsDiskFull(err) && !r.alone && !r.opts.whole {
					r.alone = true
					queue = append(r.rollback(), queue...)
					continue
				}
				if index.IsDiskFull(err) {
					return r.full(err, len(r.rollback())+len(queue))
				}
				return err
			}
		}
	}
}

// one reads the file w into the open batch. On a full disk in a batch of
// several files it returns the queue to go on with (the batch's files
// again, one per transaction, then w and the rest of queue).
func (r *ingestRun) one(w work, queue []work) (redo []work, err error) {
	var res FileResult
	if w.unforget {
		if err := r.b.Unforget(r.ctx, w.path); err != nil {
			return nil, err
		}
	}
	if got, ok := r.pre.take(w.path); ok {
		res, err = storeParsed(r.ctx, r.b, got)
		r.pre.done(got)
	} else if IsCompressed(w.path) {
		res, err = r.ix.storeCompressed(r.ctx, r.b, w.path, w.st)
	} else {
		res, err = r.ix.refreshFile(r.ctx, r.b, w.path, w.st, w.old, r.opts.Force)
	}
	dead := r.b.Dead() // the file failed first in its batch: nothing else was in it
	if dead {
		r.b = nil
	}
	if r.ctx.Err() != nil && err != nil {
		r.sum.BytesRead += res.BytesRead
		r.commit() // this file was rolled back; keep those before it
		return nil, r.ctx.Err()
	}
	if err != nil && index.IsDiskFull(err) {
		if r.alone || len(r.batch) == 0 || r.opts.whole {
			left := 1 + len(queue) + len(r.rollback())
			return nil, r.full(err, left)
		}
		// SQLite may have rolled back the whole transaction: its files
		// again, one per transaction.
		r.alone = true
		return append(r.rollback(), append([]work{w}, queue...)...), nil
	}
	one := IndexSummary{BytesRead: res.BytesRead}
	if err != nil {
		if errs.CodeOf(err) != errs.CodeIO {
			return nil, err // the index itself failed
		}
		one.Failed = append(one.Failed, failureOf(w.path, err))
	} else {
		switch res.Change {
		case Unchanged:
			if w.outside {
				break // racily clean, and the same bytes: not this run's to count
			}
			one.Unchanged++
		case Appended:
			one.Appended++
			one.Indexed++
			one.Entries += res.Entries
		case Whole:
			one.Indexed++
			one.Entries += res.Entries
		}
		if w.outside && res.Change != Unchanged {
			one.Files++
		}
		if res.State != jsonl.StateOK && !IsCompressed(w.path) && (!w.outside || res.Change != Unchanged) {
			one.Damaged++
		}
	}
	if err != nil && w.outside {
		one.Files++
	}
	if dead { // nothing to commit: the failure stands
		r.sum.add(one)
	} else {
		r.bsum.add(one)
		r.batch = append(r.batch, w)
		r.batchSize += w.cost
	}
	r.p.Files++
	r.p.Bytes += w.cost
	r.p.Path = w.path
	if r.opts.Progress != nil {
		r.opts.Progress(r.p)
	}
	if r.ctx.Err() != nil {
		// Stopped after this file was stored whole: it is counted and
		// kept with those before it, as the run says.
		r.commit()
		return nil, r.ctx.Err()
	}
	return nil, nil
}

// commit commits the open batch, if any; on an error it is gone (rolled
// back) and r.batch still names its files.
func (r *ingestRun) commit() error {
	if r.b == nil {
		return nil
	}
	err := r.b.Commit()
	r.b = nil
	if err != nil {
		return err
	}
	r.sum.add(r.bsum)
	if r.alone {
		r.ix.db.Checkpoint(r.ctx) // best effort: a WAL that stays is still whole
	}
	r.batch, r.bsum, r.batchSize = nil, IndexSummary{}, 0
	return nil
}

// rollback abandons the batch on a full disk and returns its files,
// uncounting their progress. The WAL the failed transaction grew to fill
// the disk is truncated (checkpointed first: nothing committed is lost),
// giving its room back to the files indexed one by one next.
func (r *ingestRun) rollback() []work {
	if r.b != nil {
		r.b.Rollback()
	}
	r.ix.db.Checkpoint(r.ctx) // best effort: a WAL that stays is still whole
	redo := r.batch
	for _, w := range redo {
		r.p.Files--
		r.p.Bytes -= w.cost
	}
	r.b, r.batch, r.bsum, r.batchSize = nil, nil, IndexSummary{}, 0
	return redo
}

// full is the disk_full error that ends the run, left files not indexed.
func (r *ingestRun) full(err error, left int) error {
	de, _ := index.DiskFull(r.ix.db.File(), err, 0, "").(*errs.Error)
	if de == nil || r.opts.whole {
		return err
	}
	unchanged := ""
	if r.sum.Unchanged > 0 { // indexed by an earlier run, and still so
		unchanged = fmt.Sprintf(", %d unchanged", r.sum.Unchanged)
	}
	de.Message += fmt.Sprintf("; %s indexed in this run%s, %d not indexed (run the command again once there is room)",
		plural.Count(r.sum.Indexed, "file", "files"), unchanged, left)
	de.Hint = "" // the command's name is the caller's (index.DiskFull)
	return de
}
