package codex

import (
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
)

// Resume is Codex's command that goes on from at.Leaf (SPEC §12), from
// its CLI reference: `codex resume SESSION_ID` continues a rollout at its
// end, the only leaf of a Codex session (one chain, SPEC §3.5). Codex has
// no command that goes on from an earlier entry: `codex fork SESSION_ID`
// copies the whole session into a new one (the original stays as it is),
// and in its terminal Esc twice edits an earlier message of the session
// open. Errors: cannot_resume for any entry but the last, naming those.
func (Agent) Resume(at kit.ResumeAt) (*kit.Resume, error) {
	if !at.Active {
		return nil, errs.New(errs.CodeCannotResume, "Codex goes on only from the end of a session (codex resume "+at.SessionID+
			"), not from entry "+at.Leaf+": codex fork "+at.SessionID+" copies the session, the original untouched, and Esc twice in it edits an earlier message").In(at.Path)
	}
	return &kit.Resume{Argv: []string{"codex", "resume", at.SessionID}}, nil
}
