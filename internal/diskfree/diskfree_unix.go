//go:build unix

package diskfree

import "syscall"

// Available is the number of bytes this user may still write on the file
// system holding dir: statfs(2)'s available blocks (those left to users
// who are not root) × block size. ok is false when that cannot be told:
// statfs fails, or the file system reports no blocks at all.
func Available(dir string) (bytes int64, ok bool) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil || fs.Blocks == 0 {
		return 0, false
	}
	return int64(fs.Bavail) * int64(fs.Bsize), true
}
