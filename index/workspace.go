package index

import (
	"path"
	"strings"
)

// The workspace rule (SPEC §3.3) as the index applies it.
//
// A session's workspace is stored as it was written (sessions.workspace)
// and, beside it, as its key (sessions.workspace_key, WorkspaceKey): a
// Windows path with "/" for every "\" and its drive letter in upper case,
// any other workspace as it is. `--workspace DIR` becomes a key the same
// way (filterKey) and selects the keys equal to it or starting with it and
// "/". In SQL that is one range of the index sessions_by_workspace_key,
// [key, key+"0") — "0" is the byte after "/", and SQLite's byte order and
// PostgreSQL's COLLATE "C" agree — in which a condition drops the keys
// that only share the prefix (key+"-x", key+".x").
//
// A stored key, not a set of query forms: one Windows path has 2 × 2^n
// spellings (the drive letter's case, and "\" or "/" at each of its n
// separators), and a condition on an expression of the column would
// read every row. The key is computed as a session is written
// (SessionWriter.Commit); migration 10 fills it in for the rows made
// before it, with the same rule in SQL.

// IsWindowsPath reports whether p is written as a Windows path: a drive
// letter, a colon and "\" or "/" (or nothing) after it (e:\Workspace,
// C:/Users), or a UNC path, with "\" or "/" alike (\\server\share,
// //server/share: no agent records a workspace of a Unix system with two
// slashes in front, which the kernel reads as one). Such a workspace was
// recorded on another system: it is matched as written, never resolved
// against the current directory (SPEC §3.3).
func IsWindowsPath(p string) bool {
	switch {
	case len(p) >= 2 && isDriveLetter(p[0]) && p[1] == ':':
		return len(p) == 2 || p[2] == '\\' || p[2] == '/'
	case len(p) >= 3 && isSep(p[0]) && isSep(p[1]):
		return !isSep(p[2])
	}
	return false
}

func isSep(c byte) bool { return c == '\\' || c == '/' }

func isDriveLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// WorkspaceKey is the workspace ws as the workspace rule compares it: for
// a Windows path (IsWindowsPath) every "\" made "/" and the drive letter
// upper case, so e:\Workspace\app and E:/Workspace/app have one key;
// anything else as it is.
func WorkspaceKey(ws string) string {
	if !IsWindowsPath(ws) {
		return ws
	}
	k := strings.ReplaceAll(ws, `\`, "/")
	if k[1] == ':' {
		k = strings.ToUpper(k[:1]) + k[1:]
	}
	return k
}

// filterKey is the key a workspace filter dir selects below: its
// WorkspaceKey without trailing separators, a Windows path also cleaned of
// "." and ".." (E:/Workspace/./app/ is E:/Workspace/app, E:\ is E:). ""
// is the root "/", which selects every key that starts with "/".
func filterKey(dir string) string {
	k := WorkspaceKey(dir)
	if IsWindowsPath(dir) {
		if k[1] == ':' { // a drive: E: and its path
			rest := k[2:]
			if rest != "" {
				rest = strings.TrimRight(path.Clean(rest), "/")
			}
			return k[:2] + rest
		}
		return "/" + strings.TrimRight(path.Clean(k[1:]), "/") // //server/share
	}
	return strings.TrimRight(k, "/")
}

// UnderWorkspace reports whether the workspace ws is dir or below it: the
// one rule of `--workspace DIR` in every command (SPEC §3.3). dir is a
// clean absolute path (archive.WorkspaceDir makes one), or a workspace as
// another system wrote it (a Windows path, matched with "\" and "/" alike
// and the drive letter in either case: WorkspaceKey). A match is a path
// prefix on a separator boundary, so "/a/b" matches "/a/b" and "/a/b/c"
// but not "/a/bc", e:\Workspace matches E:/Workspace/app but not
// e:\WorkspaceX, and "/" matches every absolute workspace. An empty dir
// matches everything, an empty workspace only an empty dir.
func UnderWorkspace(ws, dir string) bool {
	if dir == "" {
		return true
	}
	d, k := filterKey(dir), WorkspaceKey(ws)
	if d == "" {
		return strings.HasPrefix(k, "/")
	}
	return k == d || strings.HasPrefix(k, d+"/")
}

// workspaceCond is UnderWorkspace as SQL on col, a workspace_key column:
// a condition starting with " AND ", and its arguments; "" when dir is "".
// It is a range of the column's index (see the top of this file).
func workspaceCond(col, dir string) (string, []any) {
	if dir == "" {
		return "", nil
	}
	d := filterKey(dir)
	if d == "" {
		return " AND " + col + " >= '/' AND " + col + " < '0'", nil
	}
	return " AND " + col + " >= ? AND " + col + " < ? AND (" + col + " = ? OR " + col + " >= ?)", []any{d, d + "0", d, d + "/"}
}
