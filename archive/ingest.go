package archive

import (
	"context"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// IndexSummary is the answer of `grove index` (SPEC §8).
type IndexSummary struct {
	Files     int `json:"files"`     // session files found
	Indexed   int `json:"indexed"`   // files read and stored
	Unchanged int `json:"unchanged"` // files skipped because size, mtime and inode match the index
	Damaged   int `json:"damaged"`   // files whose state is damaged or needs-repair
	Entries   int `json:"entries"`   // entries stored by this run
	Removed   int `json:"removed"`   // sessions dropped because their file under a root is gone
	// Failed lists the files, directories and roots that could not be read;
	// everything else was indexed. Never nil.
	Failed []Failure `json:"failed"`
}

// Failure is a file, directory or root that `grove index` could not read.
type Failure struct {
	Path    string     `json:"path"`
	Code    jsonl.Code `json:"code"`
	Message string     `json:"message"`
}

func failureOf(path string, err error) Failure {
	var je *jsonl.Error
	if errors.As(err, &je) {
		msg := je.Message
		if msg == "" && je.Err != nil {
			msg = je.Err.Error()
		}
		return Failure{Path: path, Code: je.Code, Message: msg}
	}
	return Failure{Path: path, Code: jsonl.CodeIO, Message: errMsg(err)}
}

// IndexOptions say what `grove index` reads.
type IndexOptions struct {
	Roots []string // directories searched recursively for *.jsonl
	Files []string // single files, indexed whatever their name
	Force bool     // read every file even when it looks unchanged
	// Progress, when set, is called after each file with the counts so far.
	Progress func(done, total int, path string)
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

// FindSessionFiles returns every *.jsonl name under root that is not a
// directory, sorted: regular files, symlinks, and also FIFOs or broken
// links, so that reading them reports why they cannot be read instead of
// leaving them out in silence. A root that is itself a symlink is followed;
// symlinked directories below it are not (no loops). Unreadable directories
// are returned in skipped.
func FindSessionFiles(root string) (files []string, skipped []Failure, err error) {
	if _, err := os.Stat(root); err != nil {
		return nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			skipped = append(skipped, Failure{Path: p, Code: jsonl.CodeIO, Message: "cannot read directory: " + errMsg(err)})
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return nil // a symlinked directory named *.jsonl: not followed
			}
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files, skipped, err
}

// Index reads the session files of opts into the index, one transaction per
// file (SPEC §6). A file whose size, mtime, device and inode match what the
// index holds is not read again. Sessions whose files under one of the roots
// have disappeared are removed. A root, directory or file that cannot be
// read is listed in Failed and the rest is indexed; a damaged file is no
// failure (its diagnostics are stored). The error is for the index itself
// failing, or ctx ending (the summary then counts what was done).
func (a *Archive) Index(ctx context.Context, opts IndexOptions) (IndexSummary, error) {
	sum := IndexSummary{Failed: []Failure{}}
	seen := map[string]bool{}
	var files []string
	for _, f := range opts.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return sum, err
		}
		if !seen[abs] {
			seen[abs] = true
			files = append(files, abs)
		}
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
		found, skipped, err := FindSessionFiles(abs)
		if err != nil {
			sum.Failed = append(sum.Failed, Failure{Path: abs, Code: jsonl.CodeIO, Message: "cannot read session root: " + errMsg(err)})
			continue
		}
		sum.Failed = append(sum.Failed, skipped...)
		roots = append(roots, abs)
		for _, f := range found {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sum.Files = len(files)
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		n, state, changed, err := a.IndexFile(ctx, f, opts.Force)
		if ctx.Err() != nil {
			return sum, ctx.Err()
		}
		if err != nil {
			if jsonl.CodeOf(err) != jsonl.CodeIO {
				return sum, err // the index itself failed
			}
			sum.Failed = append(sum.Failed, failureOf(f, err))
			continue
		}
		if changed {
			sum.Indexed++
			sum.Entries += n
		} else {
			sum.Unchanged++
		}
		if state != jsonl.StateOK {
			sum.Damaged++
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(files), f)
		}
	}
	// Sessions whose file under an indexed root is gone leave the index.
	known, err := a.db.Paths(ctx)
	if err != nil {
		return sum, err
	}
	for _, p := range known {
		if seen[p] || !underAny(p, roots) {
			continue
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if err := a.db.Remove(ctx, p); err != nil {
				return sum, err
			}
			sum.Removed++
		}
	}
	return sum, nil
}

// markActivePath sets Active on the entries of the path from the root to
// the active leaf, the last entry in file order (SPEC §4). Parents are
// looked up by the first entry with each id; the walk stops at a missing
// parent or a cycle, so a damaged session still has the part it can reach.
func markActivePath(rows []index.Entry) {
	if len(rows) == 0 {
		return
	}
	first := make(map[string]int, len(rows))
	for i := range rows {
		if _, ok := first[rows[i].EntryID]; !ok {
			first[rows[i].EntryID] = i
		}
	}
	for i, steps := len(rows)-1, 0; steps <= len(rows); steps++ {
		if rows[i].Active {
			return // a cycle
		}
		rows[i].Active = true
		if rows[i].ParentID == nil {
			return
		}
		p, ok := first[*rows[i].ParentID]
		if !ok {
			return
		}
		i = p
	}
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func errMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// IndexFile reads one session file (absolute path) into the index, unless
// the index already holds it with the same size, mtime, device and inode and
// force is false. It returns the number of entries stored, the session's
// state, and whether the file was read.
func (a *Archive) IndexFile(ctx context.Context, path string, force bool) (int, jsonl.State, bool, error) {
	st, err := Stat(path)
	if err != nil {
		return 0, "", false, &jsonl.Error{Code: jsonl.CodeIO, Path: path, Offset: -1, Err: err, Message: "cannot read session file: " + errMsg(err)}
	}
	if !st.Regular {
		return 0, "", false, &jsonl.Error{Code: jsonl.CodeIO, Path: path, Offset: -1, Message: "not a regular file; session files are plain files"}
	}
	old, err := a.db.SessionByPath(ctx, path)
	if err != nil {
		return 0, "", false, err
	}
	if old != nil && !force && sameStat(old, st) {
		return old.Entries, jsonl.State(old.State), false, nil
	}
	f, size, err := jsonl.OpenFile(path)
	if err != nil {
		return 0, "", false, err
	}
	defer f.Close()
	var rows []index.Entry
	var facts Facts
	var minTs, maxTs *int64
	// All search text goes into one arena; textEnd[i] is where row i's ends.
	var arena []byte
	var textEnd []int
	res, err := jsonl.ReadOpen(f, size, jsonl.Options{Path: path, Mode: jsonl.Salvage, Context: ctx}, func(e jsonl.Entry) error {
		row := index.Entry{Seq: len(rows), EntryID: e.ID, Type: e.Type, Line: e.Line, Offset: e.Offset,
			Length: e.Length, CRC: crc32.ChecksumIEEE(e.Raw)}
		arena = jsonl.AppendSearchText(arena, e.Raw)
		textEnd = append(textEnd, len(arena))
		if !e.Root {
			p := e.ParentID
			row.ParentID = &p
		}
		if e.Role != "" {
			r := e.Role
			row.Role = &r
		}
		if e.HasTime {
			t := e.Timestamp
			row.TsMs = &t
			if minTs == nil || t < *minTs {
				minTs = &t
			}
			if maxTs == nil || t > *maxTs {
				maxTs = &t
			}
		}
		facts.Add(&e)
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return 0, "", false, err
	}
	start := 0
	for i := range rows {
		if end := textEnd[i]; end > start {
			rows[i].Text = arena[start:end:end]
			start = end
		}
	}
	markActivePath(rows)
	s := &index.Session{
		Path: path, SessionID: SessionID(path, res.Header), Dialect: string(res.Dialect),
		Workspace: facts.Workspace(res.Header), Name: facts.Name,
		Entries: len(rows), Lines: res.Lines, State: string(res.State()),
		FileSize: st.Size, FileMtimeNs: st.MtimeNs, FileDev: st.Dev, FileIno: st.Ino,
		CommittedLen: res.Committed, CreatedMs: minTs, ModifiedMs: maxTs,
	}
	if h := res.Header; h != nil {
		s.Version, s.ParentSession = h.Version, h.ParentSession
		if h.Timestamp != 0 {
			t := h.Timestamp
			s.CreatedMs = &t
		}
	}
	if s.ModifiedMs == nil {
		t := st.MtimeNs / 1e6
		s.ModifiedMs = &t
	}
	if len(rows) > 0 {
		id := rows[len(rows)-1].EntryID
		s.ActiveLeaf = &id
	}
	var diags []index.Diagnostic
	for _, e := range res.Errors {
		diags = append(diags, index.Diagnostic{Severity: "error", Code: string(e.Code), Line: e.Line, Offset: e.Offset, Message: e.Message})
	}
	for _, w := range res.Warnings {
		diags = append(diags, index.Diagnostic{Severity: "warning", Code: string(w.Code), Line: w.Line, Offset: w.Offset, Message: w.Message})
	}
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Line < diags[j].Line })
	var labels []index.Label
	for t, l := range facts.Labels {
		labels = append(labels, index.Label{TargetID: t, Label: l})
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].TargetID < labels[j].TargetID })
	if _, err := a.db.Replace(ctx, s, rows, diags, labels); err != nil {
		return 0, "", false, err
	}
	state := jsonl.State(s.State)
	if stored, err := a.db.SessionByPath(ctx, path); err == nil && stored != nil {
		state = jsonl.State(stored.State)
	}
	return len(rows), state, true, nil
}
