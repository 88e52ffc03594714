package main

import (
	"fmt"
	"io"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

// subagentRunJSON is one inline sub-agent run in `grove leaves --json`: the
// session, the run's sidechain root and leaves, and the Task call that
// started it (null when no call's prompt matches the root).
type subagentRunJSON struct {
	Session   string   `json:"session"`
	Path      string   `json:"path"`
	Root      string   `json:"root"`
	Leaves    []string `json:"leaves"`
	Call      any      `json:"call"`
	ToolUseID any      `json:"tool_use_id"`
}

// leavesJSON is `grove leaves --json`: {"leaves":[...]}, and "runs" when
// a session has inline sub-agent runs whose leaves are left out.
func leavesJSON(leaves []leafJSON, runs []archive.Runs) map[string]any {
	out := map[string]any{"leaves": leaves}
	var rj []subagentRunJSON
	for _, s := range runs {
		for _, r := range s.Runs {
			j := subagentRunJSON{Session: s.Session.SessionID, Path: s.Session.Path, Root: r.Root, Leaves: r.Leaves}
			if j.Leaves == nil {
				j.Leaves = []string{}
			}
			if r.Call != "" {
				j.Call, j.ToolUseID = r.Call, r.ToolUseID
			}
			rj = append(rj, j)
		}
	}
	if len(rj) > 0 {
		out["runs"] = rj
	}
	return out
}

// writeRunsNote says, under the table of `grove leaves`, how many inline
// sub-agent runs of each session it left out and where to see them; sid
// gives the short id the table shows of a session id.
func writeRunsNote(w io.Writer, runs []archive.Runs, sid map[string]string) {
	for _, s := range runs {
		if len(s.Runs) == 0 {
			continue
		}
		id := sid[s.Session.SessionID]
		if id == "" {
			id = s.Session.SessionID
		}
		fmt.Fprintf(w, "(%s: %s in its file not listed; `grove tree %s` shows them with the Task calls that started them)\n",
			id, plural.Count(len(s.Runs), "sub-agent run", "sub-agent runs"), s.Session.SessionID)
	}
}
