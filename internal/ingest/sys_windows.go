//go:build windows

package ingest

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// FileID is the identity of the file at path (fi is its stat, which on
// Windows carries none): the volume serial number and the file index,
// read by GetFileInformationByHandle through an open with no access
// rights that shares everything, so that an agent writing, renaming or
// deleting the file meanwhile is not stopped by it. Symlinks are followed,
// as by os.Stat. 0, 0 when it cannot be read. A file replaced between the
// stat and this open gets the new file's identity with the old one's
// size and time, which the next stat tells apart.
func FileID(path string, fi fs.FileInfo) (dev, ino int64) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, 0
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0, 0
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return 0, 0
	}
	return int64(d.VolumeSerialNumber), int64(d.FileIndexHigh)<<32 | int64(d.FileIndexLow)
}
