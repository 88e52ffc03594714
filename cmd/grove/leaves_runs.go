package main

import (
	"fmt"
	"io"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/internal/plural"
)

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
