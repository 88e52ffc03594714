package plain

import "github.com/grove-sessions/grove/internal/agent/kit"

// Resume is the file itself (SPEC §12): no agent runs a plain file, its
// program goes on by appending to it (`grove append`).
func (Agent) Resume(at kit.ResumeAt) (*kit.Resume, error) { return &kit.Resume{File: at.Path}, nil }
