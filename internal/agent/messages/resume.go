package messages

import "github.com/grove-sessions/grove/internal/agent/kit"

// Resume is the log itself (SPEC §12): no agent runs a messages log, its
// program goes on by appending to the file (the chapter's saveMessages,
// `grove append`), from its last line; an earlier entry is a path its
// program reads back (`grove messages`).
func (Agent) Resume(at kit.ResumeAt) (*kit.Resume, error) { return &kit.Resume{File: at.Path}, nil }
