package archive

import "github.com/grove-sessions/grove/index"

// DBOf is the index under a, for tests that compare the index's own
// queries (the path CTE, the dump) with archive's answers. Not part of the
// API: front ends ask the Archive.
func DBOf(a *Archive) *index.DB { return a.db() }
