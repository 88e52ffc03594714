package archive

import (
	"context"

	"github.com/grove-sessions/grove/jsonl"
)

// ContextStart is the index on p (Path's answer) of the first entry the
// model's context still holds at p's leaf, when a compaction on the path
// left the entries before it out; -1 when the model saw the path from its
// root. It reads no line but Codex's compacted ones, so a path of 100,000
// entries costs what its compactions cost, not a context:
//
//   - pi (SPEC §4.1): the last compaction on the path keeps the entries
//     from its firstKeptEntryId (the first entry before it with that id)
//     on, or none before it when it names none there: the index of that
//     entry, else of the compaction.
//   - codex (FORMATS.md §2.5): the newest compacted line with a
//     replacement_history replaces all history before it: its index. A
//     compacted line without one keeps the user messages before it, so it
//     marks no start; nor does a rollback (thread_rolled_back) undo one.
//   - claude: a compacted path starts at its compact_boundary (SPEC §3.4):
//     -1. plain and messages have no compaction: -1.
//
// Errors: stale_index for a compacted line that cannot be read back or
// changed since it was indexed.
func (a *Archive) ContextStart(ctx context.Context, p *Path) (int, error) {
	switch p.Session.Dialect {
	case jsonl.Pi:
		for i := len(p.Entries) - 1; i >= 0; i-- {
			e := &p.Entries[i]
			if e.Type != "compaction" {
				continue
			}
			if e.FirstKept != nil {
				for k := 0; k < i; k++ {
					if p.Entries[k].EntryID == *e.FirstKept {
						return startOrNone(k), nil
					}
				}
			}
			return startOrNone(i), nil
		}
	case jsonl.Codex:
		var f SessionFile
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		for i := len(p.Entries) - 1; i >= 0; i-- {
			e := p.Entries[i]
			if e.Type != "compacted" {
				continue
			}
			if err := ctx.Err(); err != nil {
				return -1, err
			}
			if f == nil {
				var err error
				if f, err = p.Session.open(); err != nil {
					return -1, err
				}
			}
			raw, err := ReadLine(f, p.Session.Path, e)
			if err != nil {
				return -1, err
			}
			if rh := jsonl.Field(jsonl.Field(raw, "payload"), "replacement_history"); rh != nil && string(rh) != "null" {
				return startOrNone(i), nil
			}
		}
	}
	return -1, nil
}

// startOrNone is i as a context start: -1 for the root, where every path
// starts anyway.
func startOrNone(i int) int {
	if i == 0 {
		return -1
	}
	return i
}
