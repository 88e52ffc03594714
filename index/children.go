package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// HasChildSessions reports whether a session of the index names the
// session id as its parent (parent_session: a Claude Code sub-agent, a
// Codex sub-agent or fork). It reads the sessions table only.
func (d *DB) HasChildSessions(ctx context.Context, sessionID string) (bool, error) {
	var one int
	err := d.db.GetContext(ctx, &one, "SELECT 1 FROM sessions WHERE parent_session = ? LIMIT 1", sessionID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("child sessions: %w", err)
	}
	return true, nil
}
