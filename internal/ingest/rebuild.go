package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/plural"
)

// Sources returns what `grove index` was asked to read into this index
// (roots and single files), for `grove rebuild` to read the same.
func (ix *Indexer) Sources(ctx context.Context) (roots, files []string, err error) {
	srcs, err := ix.db.Sources(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range srcs {
		if s.Kind == "root" {
			roots = append(roots, s.Path)
		} else {
			files = append(files, s.Path)
		}
	}
	return roots, files, nil
}

// Remember records opts' roots and files (absolute) as sources of this
// index, for `grove rebuild`. Sources already known cost a read, not a
// write. A root that is not a directory grove can open now (a typo, a disk
// not mounted) is not remembered: it was not read, and a rebuild would
// otherwise fail on it for ever (docs/indexing.md "grove rebuild"); nor is a file
// that is not there, or is a directory.
func (ix *Indexer) Remember(ctx context.Context, opts IndexOptions) error {
	known, err := ix.db.Sources(ctx)
	if err != nil {
		return err
	}
	have := map[index.Source]bool{}
	for _, s := range known {
		have[s] = true
	}
	var srcs []index.Source
	for _, r := range opts.Roots {
		if !readableDir(r) {
			continue
		}
		if abs, err := filepath.Abs(r); err == nil {
			srcs = append(srcs, index.Source{Kind: "root", Path: abs})
		}
	}
	for _, f := range opts.Files {
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue // not read either: remembered, a rebuild would drop it or fail on it
		}
		if abs, err := filepath.Abs(f); err == nil {
			srcs = append(srcs, index.Source{Kind: "file", Path: abs})
		}
	}
	var missing []index.Source
	for _, s := range srcs {
		if !have[s] {
			missing = append(missing, s)
			have[s] = true
		}
	}
	if err := ix.db.AddSources(ctx, missing); err != nil {
		return err
	}
	if ix.db.IsServer() { // no file beside a database on a server
		return nil
	}
	if _, err := os.Stat(SourcesPath(ix.db.File())); len(missing) > 0 || err != nil {
		if err := writeSourcesFile(ix.db.File(), append(known, missing...)); err != nil {
			return &SourcesFileError{Err: err}
		}
	}
	return nil
}

// SourcesFileError is Remember's error when only the copy of the sources
// beside the index (SourcesPath) could not be written: the sources table
// has them, and the next Remember writes the file again. Callers that
// indexed everything warn rather than fail: a disk too full for that
// small file must not fail a run that indexed every file (docs/indexing.md "A full
// disk").
type SourcesFileError struct{ Err error }

func (e *SourcesFileError) Error() string { return e.Err.Error() }
func (e *SourcesFileError) Unwrap() error { return e.Err }

// readableDir reports whether dir is a directory that can be opened and
// listed.
func readableDir(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return false
	}
	_, err = f.Readdirnames(1)
	return err == nil || errors.Is(err, io.EOF)
}

// writeSourcesFile replaces SourcesPath(dbPath) with srcs, through a
// temporary file and a rename.
func writeSourcesFile(dbPath string, srcs []index.Source) error {
	var b strings.Builder
	for _, s := range srcs {
		if strings.ContainsAny(s.Path, "\n\r") {
			continue // not representable in a line; the table still has it
		}
		b.WriteString(s.Kind + " " + s.Path + "\n")
	}
	path := SourcesPath(dbPath)
	fail := func(err error) error {
		return index.Classify(dbPath, errs.Wrap(errs.CodeIO, err, "cannot write the list of session roots: "+errs.PathReason(err)).In(path))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}

// ReadSourcesFile returns the sources SourcesPath(dbPath) lists (none when
// there is no such file).
func ReadSourcesFile(dbPath string) ([]index.Source, error) {
	b, err := os.ReadFile(SourcesPath(dbPath))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []index.Source
	for _, line := range strings.Split(string(b), "\n") {
		kind, path, ok := strings.Cut(line, " ")
		if ok && (kind == "root" || kind == "file") && filepath.IsAbs(path) {
			out = append(out, index.Source{Kind: kind, Path: path})
		}
	}
	return out, nil
}

// rebuild builds a new index of opts' files at RebuildPath(index file),
// then swaps it in (index.DB.RestoreFrom: one transaction, so readers see
// the old index or the new one) and removes the new file (SPEC §6; docs/indexing.md
// "Crashes"). It holds this index's lock throughout, so no refresh runs
// meanwhile and none is lost. If it is interrupted — ctx ends, the process
// is killed — before the swap commits, this index is as it was and the
// half-built file is removed by the next Rebuild. The result equals a clean
// index of the same files (less what the index remembered of files outside
// opts).
// opts.Force is implied. The summary is the new index's. Nothing is
// swapped in, and an io_error returned, when a file, directory or root
// could not be read, or when no session file was found but the old index
// holds sessions: a rebuild must not lose what the old index knows.
func (ix *Indexer) rebuild(ctx context.Context, opts IndexOptions) (IndexSummary, error) {
	sum := IndexSummary{Failed: []Failure{}}
	unlock, err := ix.Lock(ctx, opts.Busy)
	if err != nil {
		return sum, err
	}
	defer unlock()
	tmp := RebuildPath(ix.db.File())
	if err := removeIndexFiles(tmp); err != nil {
		return sum, err
	}
	fresh, err := openBuild(ctx, tmp)
	if err != nil {
		removeIndexFiles(tmp) // what a full disk let Open make
		return sum, err
	}
	fresh.db.SetSource(ix.db.Source())
	ix.keepInto(fresh)
	defer removeIndexFiles(tmp)
	defer fresh.Close()
	if err := carryForgotten(ctx, ix.db, fresh.db); err != nil {
		return sum, err
	}
	opts.Force, opts.Busy, opts.whole = true, nil, true
	sum, err = fresh.refresh(ctx, opts)
	if err == nil {
		err = fresh.adoptKept(ctx, &sum) // the sessions only the kept store holds (SPEC §11)
	}
	if err == nil {
		err = fresh.db.Finish(ctx)
	}
	if err == nil {
		err = fresh.Remember(ctx, opts)
	}
	if err == nil {
		err = fresh.Close()
	}
	if err != nil {
		return sum, err
	}
	// A root that cannot be read now (a typo, a disk not mounted, a
	// directory without permission) would make the new index lose what the
	// old one holds: keep the old one. One set aside as damaged holds
	// nothing to keep.
	if len(sum.Failed) > 0 && !opts.partial {
		return sum, errs.New(errs.CodeIO, fmt.Sprintf("%d of the files, directories or roots to read could not be read (%s: %s); %s",
			len(sum.Failed), sum.Failed[0].Path, sum.Failed[0].Message, NotReplaced)).In(sum.Failed[0].Path).WithHint("fix or leave out what cannot be read (grove rebuild --root DIR ... names the roots to read), then run grove rebuild again")
	}
	if sum.Files == 0 && sum.Gone == 0 {
		if n, err := ix.db.CountSessions(ctx); err == nil && n > 0 {
			return sum, errs.New(errs.CodeIO, fmt.Sprintf("no session files found; %s (it holds %s)", NotReplaced, plural.Count(n, "session", "sessions"))).In(strings.Join(opts.Roots, ":")).WithHint("name the roots to read with --root DIR")
		}
	}
	if err := ix.swapIn(ctx, tmp); err != nil {
		return sum, ix.db.Classify(err)
	}
	if srcs, err := ix.db.Sources(ctx); err == nil {
		if err := writeSourcesFile(ix.db.File(), srcs); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// openBuild opens a new index at path for a cold build (index.OpenBuild).
func openBuild(ctx context.Context, path string) (*Indexer, error) {
	db, err := index.OpenBuild(ctx, path)
	if err != nil {
		return nil, err
	}
	return &Indexer{db: db}, nil
}

// NotReplaced ends the message of a Rebuild that kept the old index. A
// caller whose index did not exist before the rebuild (so it was made
// empty for it, and is removed again: see RemoveIndexFiles) says "no index
// was made" in its place.
const NotReplaced = "the index was not replaced"
