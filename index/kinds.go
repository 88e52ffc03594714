package index

import (
	"context"
	"fmt"

	"github.com/grove-sessions/grove/jsonl"
)

// Branch kinds in the index (SPEC §4.2, migration 12): a whole read of a
// file with kinds (a Claude Code file) hands the kind facts of all its
// entries to Session.KindFacts, and Commit decides the kinds with the
// session's active leaf (jsonl.DecideKinds) and stores those other than
// branch. Listings then filter on the stored columns.

// storeKinds stores the kinds that the facts of s.KindFacts decide, one
// fact per entry of the session in seq order: entries.kind and
// entries.path_kind for every entry with a kind other than branch (the
// rest NULL), and sessions.real_leaves. A session without facts keeps
// NULL everywhere: all its leaves are real.
func (w *SessionWriter) storeKinds(ctx context.Context) error {
	s, tx, sid := w.s, w.tx, w.s.SID
	facts := s.KindFacts
	if facts == nil {
		return nil
	}
	s.KindFacts = nil
	if len(facts) != w.seq {
		return fmt.Errorf("kinds: %d entries read for %d stored", len(facts), w.seq)
	}
	active := ""
	if s.ActiveLeaf != nil {
		active = *s.ActiveLeaf
	}
	r := jsonl.DecideKinds(facts, active)
	if w.base > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE entries SET kind = NULL, path_kind = NULL
			WHERE sid = ? AND (kind IS NOT NULL OR path_kind IS NOT NULL)`, sid); err != nil {
			return fmt.Errorf("kinds: %w", err)
		}
	}
	named := make(map[string]struct{}, len(facts))
	for i := range facts {
		if !facts[i].Root {
			named[facts[i].Parent] = struct{}{}
		}
	}
	real := 0
	for i := range facts {
		if _, ok := named[facts[i].ID]; !ok && r.OnPath[i] == jsonl.KindBranch {
			real++
		}
		if r.Kind[i] == jsonl.KindBranch && r.OnPath[i] == jsonl.KindBranch {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE entries SET kind = ?, path_kind = ? WHERE sid = ? AND seq = ?`,
			kindColumn(r.Kind[i]), kindColumn(r.OnPath[i]), sid, i); err != nil {
			return fmt.Errorf("kinds: %w", err)
		}
	}
	s.RealLeaves = &real
	return nil
}

// kindColumn is k as entries.kind stores it: NULL for branch.
func kindColumn(k jsonl.Kind) *string {
	if k == jsonl.KindBranch {
		return nil
	}
	n := k.String()
	return &n
}
