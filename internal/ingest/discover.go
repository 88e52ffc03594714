package ingest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/jsonl"
)

// ZstSuffix ends the name of a session file compressed with zstd (a
// Codex rollout, FORMATS.md §2.1). grove does not read such files:
// discovery lists them (when the agent's SessionFile says Compressed) and
// the index holds each as a session with no entries and one
// unsupported_compression diagnostic (SPEC §3.5), never skipped in silence.
const ZstSuffix = ".jsonl.zst"

// UnsupportedHint is the hint of an unsupported_compression failure.
const UnsupportedHint = "decompress it beside itself (zstd -d FILE keeps FILE and writes the .jsonl, which grove then reads instead), or ignore it"

// IsCompressed reports whether path names a file grove lists but cannot
// read (a *.jsonl.zst, SPEC §3.5).
func IsCompressed(path string) bool { return strings.HasSuffix(path, ZstSuffix) }

// IsSessionFile reports whether the file at path is one discovery lists
// under a root (FindSessionFiles' rule, isSessionName): for grove watch,
// which hears of files one by one.
func IsSessionFile(path string) bool { return isSessionName(filepath.Dir(path), filepath.Base(path)) }

// isSessionName is the file-name rule of discovery (SPEC §3, FORMATS.md §1.1,
// §2.1) for the file name in the directory dir, as the agents say it
// (Agent.SessionFile): an agent's file that is no transcript (a Codex or
// Claude home's history.jsonl) or a compressed file a plain sibling stands
// for is not listed; a compressed session file is listed (as
// unsupported); of everything else a *.jsonl is a session file, and the
// rest (pi's other files, Claude's *.meta.json and tool-results/*.txt)
// is not.
func isSessionName(dir, name string) bool {
	for _, a := range agent.All {
		switch a.SessionFile(dir, name) {
		case agent.Skipped:
			return false
		case agent.Compressed:
			return true
		}
	}
	return strings.HasSuffix(name, ".jsonl")
}

// compressedAgent is the agent whose compressed session file path is: the
// first that has something to say of its name (SessionFile: Compressed,
// or Skipped when a plain sibling has since appeared), Default when none
// has.
func compressedAgent(path string) agent.Agent {
	for _, a := range agent.All {
		if a.SessionFile(filepath.Dir(path), filepath.Base(path)) != agent.NotMine {
			return a
		}
	}
	return agent.Default
}

// unsupportedFailure is what an index run says of a compressed file: it
// is listed, with no entries, not read.
func unsupportedFailure(path string) Failure {
	return Failure{Path: path, Code: errs.CodeUnsupportedCompression,
		Message: "compressed with zstd (.jsonl.zst), which grove does not read; listed as a session with no entries",
		Hint:    UnsupportedHint}
}

// storeCompressed writes the index row of a compressed session file (SPEC
// §3.5): the dialect of the agent whose file it is and the id its name
// gives (the agent's SessionID without a header), no entries, the file's
// stat (so that the next run finds it unchanged) and one
// unsupported_compression diagnostic on line 0.
func (ix *Indexer) storeCompressed(ctx context.Context, b *index.Batch, path string, st FileStat) (FileResult, error) {
	if !st.Regular {
		return FileResult{}, errs.New(errs.CodeIO, "not a regular file; session files are plain files").In(path)
	}
	owner := compressedAgent(path)
	s := &index.Session{Path: path, SessionID: owner.SessionID(path, nil), Dialect: string(owner.Dialect()), FirstMessage: new(string)}
	w, err := b.Replace(ctx, s)
	if err != nil {
		return FileResult{}, err
	}
	defer w.Rollback()
	f := unsupportedFailure(path)
	if err := w.AddDiagnostics(ctx, []index.Diagnostic{{Severity: "error", Code: string(f.Code), Message: f.Message}}); err != nil {
		return FileResult{}, err
	}
	s = w.Session()
	s.FileSize, s.FileMtimeNs, s.FileDev, s.FileIno = st.Size, st.MtimeNs, st.Dev, st.Ino
	if err := w.Commit(ctx); err != nil {
		return FileResult{}, err
	}
	return FileResult{Change: Whole, State: jsonl.State(s.State)}, nil
}

// Stat returns the FileStat of path.
func Stat(path string) (FileStat, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileStat{}, err
	}
	st := FileStat{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Regular: fi.Mode().IsRegular()}
	st.Dev, st.Ino = FileID(path, fi)
	return st, nil
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
	files, _, skipped, _, err = findSessionFiles(root)
	return files, skipped, err
}

// findSessionFiles is FindSessionFiles, also saying which of the files are
// symlinks (below a root with symlinks resolved, only those can have a
// real path other than their name) and which symlinks below the root
// name directories (folders, sorted: not followed, so that the caller can
// say so).
func findSessionFiles(root string) (files []string, links map[string]bool, skipped []Failure, folders []string, err error) {
	if _, err := os.Stat(root); err != nil {
		return nil, nil, nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	w := &sessionWalk{root: root, sem: make(chan struct{}, walkers-1)}
	fi, err := os.Lstat(root)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var top dirFiles
	if fi.IsDir() {
		top, err = w.dir(root)
	} else {
		top.entry(root, fs.FileInfoToDirEntry(fi))
	}
	files, skipped = top.files, top.skipped
	if len(top.links) > 0 {
		links = map[string]bool{}
		for _, l := range top.links {
			links[l] = true
		}
	}
	sort.Strings(files)
	sort.Strings(top.folders)
	return files, links, skipped, top.folders, err
}

// walkers is how many directories findSessionFiles reads at once: a
// no-op refresh of 10,000 files spends a third of its time walking.
const walkers = 4

// sessionWalk is one walk of findSessionFiles: filepath.WalkDir's walk
// (directories in name order, symlinked ones not followed, an unreadable
// one reported and its readable entries kept), with subdirectories read
// by other goroutines while sem has room. The answer is the one WalkDir
// gives, skipped directories in WalkDir's order.
type sessionWalk struct {
	root string
	sem  chan struct{} // a token per goroutine beyond the first
}

// dirFiles is what a walk found in one directory and below it.
type dirFiles struct {
	files   []string
	links   []string // the files that are symlinks
	skipped []Failure
	folders []string // the symlinks to directories, not followed
}

// entry adds the directory entry d at path p when it names a session
// file.
// A symlink to a directory goes to folders, whatever its name; so does one
// that leads nowhere (dangling, a loop) not named as a session file (one
// that is, is listed, for reading it to say why it cannot be read).
func (r *dirFiles) entry(p string, d fs.DirEntry) {
	if d.Type()&fs.ModeSymlink != 0 {
		fi, err := os.Stat(p)
		if err == nil && fi.IsDir() {
			r.folders = append(r.folders, p) // not followed: no loops, no file under two names
			return
		}
		if err != nil && !isSessionName(filepath.Dir(p), d.Name()) {
			r.folders = append(r.folders, p) // leads nowhere (dangling, a loop): said, as a folder's link is
			return
		}
	}
	if !isSessionName(filepath.Dir(p), d.Name()) {
		return
	}
	if d.Type()&fs.ModeSymlink != 0 {
		r.links = append(r.links, p)
	}
	r.files = append(r.files, p)
}

func (r *dirFiles) add(o dirFiles) {
	r.files = append(r.files, o.files...)
	r.links = append(r.links, o.links...)
	r.skipped = append(r.skipped, o.skipped...)
	r.folders = append(r.folders, o.folders...)
}

// dir walks the directory dir. The only error is the root's: it cannot
// be read.
func (w *sessionWalk) dir(dir string) (dirFiles, error) {
	var r dirFiles
	ents, err := os.ReadDir(dir)
	if err != nil {
		if dir == w.root {
			return r, err
		}
		r.skipped = append(r.skipped, Failure{Path: dir, Code: errs.CodeIO, Message: "cannot read directory: " + errs.PathReason(err)})
	}
	// Subdirectories in order, each read here or, while a token is free,
	// by a goroutine of its own; their findings join in name order.
	var subs []*dirFiles
	var wg sync.WaitGroup
	for _, d := range ents {
		p := filepath.Join(dir, d.Name())
		if !d.IsDir() {
			r.entry(p, d)
			continue
		}
		sub := &dirFiles{}
		subs = append(subs, sub)
		select {
		case w.sem <- struct{}{}:
			wg.Add(1)
			go func() {
				defer wg.Done()
				*sub, _ = w.dir(p)
				<-w.sem
			}()
		default:
			*sub, _ = w.dir(p)
		}
	}
	wg.Wait()
	// WalkDir's order: this directory's failure, then its entries'
	// findings in name order (files sort later; skipped keep this order).
	for _, sub := range subs {
		r.add(*sub)
	}
	return r, nil
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

// RootFailure says why the session root root cannot be read, from the
// error of statting or walking it: "no such directory", "symlink loop",
// "not a directory", or the system's words (SPEC §8 `index`).
func RootFailure(root string, err error) Failure {
	msg := errs.PathReason(err)
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
