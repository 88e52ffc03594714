package index

import "strings"

// UnderWorkspace reports whether the workspace ws is dir or below it: the
// one rule of `--workspace DIR` in every command (SPEC §3.3). dir is a
// clean absolute path (archive.WorkspaceDir makes one); a match is a path
// prefix on a separator boundary, so "/a/b" matches "/a/b" and "/a/b/c" but
// not "/a/bc", and "/" matches every absolute workspace. An empty dir
// matches everything, an empty workspace only an empty dir.
func UnderWorkspace(ws, dir string) bool {
	if dir == "" {
		return true
	}
	d := strings.TrimRight(dir, "/") // "/" trims to "": the prefix "/" then matches every absolute workspace
	return (d != "" && ws == d) || strings.HasPrefix(ws, d+"/")
}

// workspaceCond is UnderWorkspace as SQL on the column col: a condition
// starting with " AND ", and its arguments; "" when dir is "".
func workspaceCond(col, dir string) (string, []any) {
	if dir == "" {
		return "", nil
	}
	d := strings.TrimRight(dir, "/")
	if d == "" {
		return " AND substr(" + col + ", 1, 1) = '/'", nil
	}
	return " AND (" + col + " = ? OR substr(" + col + ", 1, ?) = ?)", []any{d, len(d) + 1, d + "/"}
}
