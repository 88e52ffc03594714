// Package flock takes the advisory writer locks of SPEC §5 ("only one
// writer per file at a time, across processes ... readers never wait for
// it") and of the index's lock file: an exclusive lock on an open file,
// taken without waiting, that other writers taking it see and readers
// never do.
//
// A lock belongs to the open file (the *os.File), not to the process: two
// opens of one file in one process conflict like two processes do, and
// closing the file, or the process ending in any way (SIGKILL too),
// releases it.
//
// On Unix it is flock(2) with LOCK_EX|LOCK_NB. On Windows it is
// LockFileEx with LOCKFILE_EXCLUSIVE_LOCK|LOCKFILE_FAIL_IMMEDIATELY on the
// one byte at offset 1<<62 (lockOffset), far past the end of any file.
// Windows byte-range locks are mandatory: a lock on the bytes of the file
// would make other processes' reads of them fail, and also the writer's
// own appends through another handle. No file ever reaches that offset,
// so nothing that reads or writes data touches the locked byte, and only
// a second TryLock sees it.
//
// # Caveats
//
// The lock is advisory: a program that does not take it (an agent writing
// its own session file) is not stopped by it. On Unix, flock(2) over NFS
// is emulated with fcntl byte-range locks by Linux, which are per process:
// two opens in one process then do not conflict there.
package flock
