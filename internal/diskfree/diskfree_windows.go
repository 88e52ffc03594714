//go:build windows

package diskfree

import "golang.org/x/sys/windows"

// Available is the number of bytes this user may still write on the
// volume holding dir: GetDiskFreeSpaceEx's bytes available to the caller,
// which counts disk quotas. ok is false when that cannot be told: the
// call fails, or the volume reports no size at all.
func Available(dir string) (bytes int64, ok bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &totalFree); err != nil || total == 0 {
		return 0, false
	}
	return int64(min(avail, 1<<62)), true
}
