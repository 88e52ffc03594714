// Package watch tells which session files (*.jsonl) changed below a set of
// root directories, for `grove watch`. It sits on
// github.com/fsnotify/fsnotify (inotify on Linux, kqueue on the BSDs and
// macOS, ReadDirectoryChangesW on Windows).
//
// fsnotify watches one directory at a time, so New adds every directory
// below each root, and the watcher adds each directory created later (or
// renamed into place), reading it at once for files made before its watch
// was added. A directory removed or renamed away loses its watches, and
// those of the directories below it.
//
// Changes come out as a Batch: the *.jsonl paths created, written, renamed
// into place, removed or renamed away, each once. A batch is delivered once
// no event arrived for Options.Quiet (250 ms), or Options.MaxDelay (2 s)
// after its first event while events keep arriving, so a session appended
// to every 50 ms is still delivered every 2 s. While the reader is busy
// with a batch, events gather into the next one; nothing is dropped.
//
// A batch with Rescan set asks the reader to walk the roots again: every
// Options.Rescan (5 minutes), at once when the kernel's event queue
// overflowed, and after a watched directory was renamed away (its files
// left without an event each). Problems (a directory that cannot be
// watched or read, the watch limit) come in Batch.Errors; the watch goes
// on with what it can watch and relies on rescans for the rest.
//
// Idle, the watcher's goroutines block in one select each: no polling, no
// ticks shorter than the rescan period.
//
// # Caveats
//
//   - Each directory costs one inotify watch. Linux limits them per user
//     (fs.inotify.max_user_watches; 8192 on older kernels, more on newer
//     ones); past the limit, directories are reported with ErrWatchLimit
//     and their changes are seen only by rescans.
//   - Symlinked directories below a root are not followed (as
//     ingest.FindSessionFiles), and a *.jsonl symlink to a file elsewhere
//     sends no event when that file changes: rescans catch it.
//   - A root is resolved once, when New is called. A root that is removed
//     and made again is not watched again; nor is a root that did not exist
//     yet (New refuses it).
//   - Attribute changes (chmod, touch without writing) are ignored.
//   - A path in a batch says something happened to it, not what: it may
//     have been created and removed again within the batch.
package watch
