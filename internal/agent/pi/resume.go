package pi

import (
	"path/filepath"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/agent/kit"
)

// Resume is pi's command that goes on from at.Leaf (SPEC §12): `pi
// --session FILE`, pi's own flag for "use this session file", which opens
// the file at its active leaf (its last entry, SPEC §1). Another leaf is
// first made the active leaf of a new file — a fork of its path (SPEC §5,
// ForkDir) — and that file is the one resumed: the caller forks and asks
// again. Errors: cannot_resume for a leaf that is not active.
func (Agent) Resume(at kit.ResumeAt) (*kit.Resume, error) {
	if !at.Active {
		return nil, errs.New(errs.CodeCannotResume, "pi opens a session file at its last entry; "+at.Leaf+" is not it: fork the path first (grove export --format jsonl)").In(at.Path)
	}
	return &kit.Resume{Argv: []string{"pi", "--session", at.Path}}, nil
}

// ForkDir is the folder pi keeps the sessions of workspace in, where the
// fork that resumes another leaf is written: pi's getDefaultSessionDir,
// <agent dir>/sessions/--<workspace>--, the workspace without its leading
// separator and with every "/", "\" and ":" made "-"; the agent dir is
// $PI_CODING_AGENT_DIR, else ~/.pi/agent (the same as Roots). pi names
// the files in it <ISO time, ":" and "." made "-">_<id>.jsonl, as
// archive.Fork does for a directory.
func (Agent) ForkDir(workspace, home string, getenv func(string) string) string {
	safe := workspace
	if strings.HasPrefix(safe, "/") || strings.HasPrefix(safe, `\`) {
		safe = safe[1:] // pi's /^[/\\]/: one separator, not all
	}
	safe = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(safe)
	return filepath.Join(Agent{}.Roots(home, getenv)[0], "--"+safe+"--")
}
