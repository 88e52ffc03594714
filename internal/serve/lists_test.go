package serve

import (
	"testing"

	"github.com/grove-sessions/grove/archive"
)

// A listing names each session's source only when it holds sessions of
// more than one (a team's index, SPEC §10); one machine's listing does not.
func TestRowsOf_MachineOnlyWhenSourcesDiffer(t *testing.T) {
	one := []archive.Session{{SessionID: "a", Source: "laptop"}, {SessionID: "b", Source: "laptop"}}
	for _, r := range rowsOf(one, nil) {
		if r.Machine != "" {
			t.Fatalf("one source: row %s names machine %q", r.SessionID, r.Machine)
		}
	}
	two := []archive.Session{{SessionID: "a", Source: "laptop"}, {SessionID: "b", Source: "ci-runner"}}
	rows := rowsOf(two, nil)
	if rows[0].Machine != "laptop" || rows[1].Machine != "ci-runner" {
		t.Fatalf("two sources: machines %q, %q", rows[0].Machine, rows[1].Machine)
	}
}
