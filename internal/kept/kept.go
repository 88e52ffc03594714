// Package kept is grove's kept store (SPEC §11): the committed bytes of
// every session file grove indexes, appended as they are read, in a folder
// of its own beside the index, so that a session whose file is gone still
// answers byte for byte.
//
// One session file is kept as two files, named by a hash of its source and
// path (Name):
//
//	kept/<hh>/<hash>.jsonl.zst   the bytes: a zstd stream
//	kept/<hh>/<hash>.idx         the frame index: 16 bytes per frame
//
// The .jsonl.zst file is a sequence of zstd frames (RFC 8878), each an
// independent frame holding whole committed lines, each preceded by a
// skippable frame (RFC 8878 §3.1.2, magic 0x184D2A5E) that describes it:
// the raw length (8 bytes), the compressed length (4 bytes) and the CRC-32
// (IEEE) of the raw bytes (4 bytes), all little-endian. The file starts
// with one more skippable frame that names the session file (JSON:
// {"source":…,"path":…}). Any zstd tool skips the skippable frames, so
// `zstd -dc` of a kept file is the session file's committed JSONL.
//
// The .idx file lists each frame's raw offset and file offset (two
// little-endian int64s); it is a cache that Open checks against the
// .jsonl.zst file and rebuilds from it. A frame cut short by a crash (a
// torn frame) is detected by its descriptor, length and CRC, and cut when
// the file is next opened for writing (Writer).
//
// Folders are 0700, files 0600. One writer at a time: grove's writers hold
// the index's lock (internal/ingest).
package kept

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Dir is the kept store's folder beside the index file db: "kept" in the
// index's folder (SPEC §11).
func Dir(db string) string { return filepath.Join(filepath.Dir(db), "kept") }

// Store is a kept store's folder. Its methods may be called from several
// goroutines; writes to one session file must come from one at a time.
type Store struct {
	dir string
}

// Open is the kept store in dir. Nothing is created until the first write.
func Open(dir string) *Store { return &Store{dir: dir} }

// Dir is the store's folder.
func (st *Store) Dir() string { return st.dir }

// Name is the base path (without extension) of the kept copy of the
// session file path of source: a hash of both, under a folder named by
// the hash's first two hex digits.
func (st *Store) Name(source, path string) string {
	h := sha256.Sum256([]byte(source + "\x00" + path))
	x := hex.EncodeToString(h[:16])
	return filepath.Join(st.dir, x[:2], x)
}

const (
	zstExt = ".jsonl.zst"
	idxExt = ".idx"
)

var (
	// ErrNotKept is returned when the store holds no copy of a file.
	ErrNotKept = errors.New("kept: no kept copy of the session file")

	// ErrCorrupt is returned when a kept copy's head cannot be read, or a
	// frame of it does not inflate to the bytes its descriptor names.
	ErrCorrupt = errors.New("kept: the kept copy is damaged")
)

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	dec     *zstd.Decoder
)

// codecs are the shared encoder and decoder; EncodeAll and DecodeAll may
// be called concurrently.
func codecs() (*zstd.Encoder, *zstd.Decoder) {
	encOnce.Do(func() {
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true),
			zstd.WithWindowSize(256<<10), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic(err) // only for options that are wrong
		}
		dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxFrame))
		if err != nil {
			panic(err)
		}
	})
	return enc, dec
}

// Entry is one kept session file, as List finds it.
type Entry struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Len    int64  `json:"len"`   // committed bytes kept (current version)
	Bytes  int64  `json:"bytes"` // bytes on disk, every version
}

// List lists every kept session file (its current version), in path order.
// A kept copy whose head cannot be read is an error naming it.
func (st *Store) List() ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(st.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && p == st.dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, zstExt) || isVersion(p) {
			return nil
		}
		f, err := openFile(strings.TrimSuffix(p, zstExt), false)
		if err != nil {
			return err
		}
		e := Entry{Source: f.Source, Path: f.Path, Len: f.Size()}
		f.Close()
		e.Bytes = diskBytes(strings.TrimSuffix(p, zstExt))
		out = append(out, e)
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Source < out[j].Source
	})
	return out, err
}

// Size is the bytes the store takes on disk (every file in it); 0 when
// it does not exist.
func (st *Store) Size() (int64, error) {
	n, _, err := st.Stats()
	return n, err
}

// Stats is the bytes the store takes on disk (every file in it) and how
// many session files it keeps; 0, 0 when it does not exist.
func (st *Store) Stats() (size int64, files int, err error) {
	var n int64
	err = filepath.WalkDir(st.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && p == st.dir {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
			if strings.HasSuffix(p, zstExt) && !isVersion(p) {
				files++
			}
		}
		return nil
	})
	return n, files, err
}

// Len is the committed bytes kept of path (the current version); 0 when
// none are.
func (st *Store) Len(source, path string) (int64, error) {
	f, err := st.OpenFile(source, path)
	if errors.Is(err, ErrNotKept) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.Size(), nil
}

// OpenFile opens the kept copy of path for reading back by offset; for a
// VersionPath of which no file of that very name is kept, that earlier
// version. A torn frame at its end is left out
// (not cut: readers never write). Errors: ErrNotKept, ErrCorrupt, the file
// system's.
func (st *Store) OpenFile(source, path string) (*File, error) {
	f, err := openFile(st.Name(source, path), false)
	if p, n, ok := SplitVersion(path); ok && errors.Is(err, ErrNotKept) {
		return st.OpenVersion(source, p, n) // no file of that very name is kept
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// DamagedHint is what to do about a damaged kept copy (ErrCorrupt) of a
// session file that is gone, its only copy: nothing rewrites it.
const DamagedHint = "the session file is gone and this kept copy is its only copy: `zstd -dc` of the kept file named recovers the lines before the damage (zstd -dc KEPT > recovered.jsonl); to rebuild the index without this session, move that file out of the kept folder"

// damagedExt ends the name of a kept copy set aside (SetAside): not a
// kept copy any more, so List and Stats leave it out.
const damagedExt = ".damaged"

// SetAside moves the kept copy of path out of the store's way, as
// <hash>.jsonl.zst.damaged (…damaged-2 and on when that is taken), and
// drops its frame index, which is a cache; the caller keeps the file's
// bytes afresh. Nothing is deleted. It answers the new name. Errors: the
// file system's.
func (st *Store) SetAside(source, path string) (string, error) {
	base := st.Name(source, path)
	to := base + zstExt + damagedExt
	for n := 2; ; n++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		to = base + zstExt + damagedExt + "-" + strconv.Itoa(n)
	}
	if err := os.Rename(base+zstExt, to); err != nil {
		return "", err
	}
	if err := os.Remove(base + idxExt); err != nil && !errors.Is(err, os.ErrNotExist) {
		return to, err
	}
	return to, nil
}

// Remove removes every version of the kept copy of path; for a
// VersionPath of which no file of that very name is kept, that earlier
// version alone. None is no error.
func (st *Store) Remove(source, path string) error {
	base := st.Name(source, path)
	names, _ := filepath.Glob(base + ".*")
	if p, n, ok := SplitVersion(path); ok && len(names) == 0 {
		v := fmt.Sprintf("%s.v%d", st.Name(source, p), n)
		names = []string{v + zstExt, v + idxExt}
	}
	for _, n := range names {
		if err := os.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Versions is how many earlier versions of path are kept (Writer.Retire).
func (st *Store) Versions(source, path string) int {
	names, _ := filepath.Glob(st.Name(source, path) + ".v*" + zstExt)
	return len(names)
}

// OpenVersion opens earlier version n (1 is the oldest) of path.
func (st *Store) OpenVersion(source, path string, n int) (*File, error) {
	return openFile(fmt.Sprintf("%s.v%d", st.Name(source, path), n), false)
}

// Version is one earlier version of a kept session file (Writer.Retire).
type Version struct {
	Source, Path string
	N            int // 1 is the oldest
}

// EarlierVersions lists every earlier version the store keeps, in the
// order of the store's folders; none when the store does not exist. Only
// each version's head is read. A version whose head cannot be read is an
// error naming its file (ErrCorrupt in the chain).
func (st *Store) EarlierVersions() ([]Version, error) {
	dirs, err := os.ReadDir(st.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Version
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(st.dir, d.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			name := f.Name()
			if !strings.HasSuffix(name, zstExt) || !isVersion(name) {
				continue
			}
			base := strings.TrimSuffix(name, zstExt)
			n, err := strconv.Atoi(base[strings.LastIndex(base, ".v")+2:])
			if err != nil || n < 1 {
				continue // a name the store does not give (SetAside's among them)
			}
			h, err := readHeadOf(filepath.Join(st.dir, d.Name(), name))
			if err != nil {
				return nil, err
			}
			out = append(out, Version{Source: h.Source, Path: h.Path, N: n})
		}
	}
	return out, nil
}

// readHeadOf reads the head of the kept file at p. Errors: the file
// system's, ErrCorrupt naming p.
func readHeadOf(p string) (head, error) {
	f, err := os.Open(p)
	if err != nil {
		return head{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return head{}, err
	}
	h, _, err := readHead(f, fi.Size())
	if err != nil {
		return head{}, fmt.Errorf("%s: %w", p, err)
	}
	return h, nil
}

// isVersion reports whether p is an earlier version's file.
func isVersion(p string) bool {
	base := strings.TrimSuffix(filepath.Base(p), zstExt)
	return strings.Contains(base, ".v")
}

// diskBytes is the bytes on disk of base's files, every version.
func diskBytes(base string) int64 {
	names, _ := filepath.Glob(base + ".*")
	var n int64
	for _, name := range names {
		if fi, err := os.Stat(name); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// versionMark separates a session file's path from the number of one of
// its earlier versions in the path the index gives that version
// (VersionPath). Session files are found by their names' endings (.jsonl
// and the like, SPEC §3), so no session file's path ends in a mark.
const versionMark = "@v"

// VersionPath is the path under which earlier version n (1 is the oldest)
// of the session file path is indexed and named on the command line:
// path + "@v" + n, e.g. /home/u/.pi/s.jsonl@v1 (SPEC §11).
func VersionPath(path string, n int) string { return path + versionMark + strconv.Itoa(n) }

// SplitVersion is the session file's path and the version's number of a
// VersionPath; ok is false for any other path.
func SplitVersion(p string) (path string, n int, ok bool) {
	i := strings.LastIndex(p, versionMark)
	if i <= 0 {
		return p, 0, false
	}
	n, err := strconv.Atoi(p[i+len(versionMark):])
	if err != nil || n < 1 || strconv.Itoa(n) != p[i+len(versionMark):] {
		return p, 0, false
	}
	return p[:i], n, true
}

// VersionNumbers are the numbers of the earlier versions of path that are
// kept (Writer.Retire), in increasing order.
func (st *Store) VersionNumbers(source, path string) []int {
	base := st.Name(source, path)
	names, _ := filepath.Glob(base + ".v*" + zstExt)
	var out []int
	for _, name := range names {
		v := strings.TrimSuffix(strings.TrimPrefix(name, base+".v"), zstExt)
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// IsEarlier reports whether the index row of path and sessionID is an
// earlier version (VersionPath): both end in the same "@vN".
func IsEarlier(path, sessionID string) bool {
	_, n, ok := SplitVersion(path)
	return ok && strings.HasSuffix(sessionID, versionMark+strconv.Itoa(n))
}
