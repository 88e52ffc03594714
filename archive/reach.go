package archive

import "context"

// PathKind is the first kind other than branch on the path from its root
// to the entry at seq of session s (SPEC §4.2, as stored at index time):
// "" when the entry is on a real branch, else parallel, progress, replay
// or command (the entry lies on an artifact). Errors are the index's.
func (a *Archive) PathKind(ctx context.Context, s *Session, seq int) (string, error) {
	if s == nil || s.row == nil {
		return "", nil
	}
	k, err := a.db().PathKindOf(ctx, s.row.SID, seq)
	if err != nil || k == nil {
		return "", err
	}
	return *k, nil
}
