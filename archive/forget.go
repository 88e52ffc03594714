package archive

import (
	"context"
	"errors"
	"time"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/internal/ingest"
	"github.com/grove-sessions/grove/internal/kept"
)

// Forgetter is a store besides the index that holds session files' bytes
// (the kept store, SPEC §11), told to drop a file `grove forget` removes
// (ingest.Forgetter).
type Forgetter = ingest.Forgetter

// AlsoForget makes Forget drop each file from f too, after the index
// commits (ingest.Indexer.AlsoForget).
func (a *Archive) AlsoForget(f Forgetter) { a.ix.AlsoForget(f) }

// ForgetFilter says which sessions `grove forget` removes (SPEC §11):
// the sessions Names name (any name Resolve takes), or, with no names,
// every session of this grove's source whose workspace is Workspace or
// below it (index.UnderWorkspace; "" for any) and, when Before is not
// zero, whose modified time (SPEC §3.2) is before Before. One of the
// three must be given.
type ForgetFilter struct {
	Names     []string
	Workspace string
	Before    time.Time
}

// ForgetPick returns the sessions f picks, each once, in the order named,
// else most recently modified first. In a team's index (SPEC §10) only
// this grove's source's sessions can be forgotten: a name that resolves
// to another source's session is unknown_session with a hint naming
// --source. Errors: those of Resolve; usage for an empty filter.
func (a *Archive) ForgetPick(ctx context.Context, f ForgetFilter) ([]Session, error) {
	own := a.db().Source()
	if len(f.Names) > 0 {
		var out []Session
		seen := map[int64]bool{}
		for _, n := range f.Names {
			s, err := a.resolve(ctx, n)
			if err != nil {
				return nil, err
			}
			if a.db().IsServer() && s.Source != own {
				return nil, errs.New(errs.CodeUnknownSession, "the session is "+s.Source+"'s, not this grove's source "+own).In(n).
					WithHint("forget it as the source that indexed it: grove forget --source " + s.Source + " ...")
			}
			if !seen[s.SID] {
				seen[s.SID] = true
				out = append(out, *sessionOf(s))
			}
		}
		return a.withEarlier(ctx, out, seen)
	}
	if f.Workspace == "" && f.Before.IsZero() {
		return nil, errors.New("forget: name sessions, or pick them with --workspace or --before")
	}
	sf := index.SessionFilter{Workspace: f.Workspace}
	if a.db().IsServer() {
		sf.Source = own
	}
	rows, err := a.db().Sessions(ctx, sf)
	if err != nil {
		return nil, err
	}
	var out []Session
	seen := map[int64]bool{}
	for i := range rows {
		m := rows[i].ModifiedMs
		if !f.Before.IsZero() && (m == nil || *m >= f.Before.UnixMilli()) {
			continue
		}
		seen[rows[i].SID] = true
		out = append(out, *sessionOf(&rows[i]))
	}
	return a.withEarlier(ctx, out, seen)
}

// withEarlier is picked and, after each session, the earlier versions of
// its file that the index holds (StateEarlier, SPEC §11): forgetting a
// session forgets every version of it; seen holds the sids in picked.
func (a *Archive) withEarlier(ctx context.Context, picked []Session, seen map[int64]bool) ([]Session, error) {
	st := a.ix.KeptStore()
	if st == nil {
		return picked, nil // PostgreSQL keeps no earlier version
	}
	var out []Session
	for _, s := range picked {
		out = append(out, s)
		if s.row == nil || kept.IsEarlier(s.Path, s.SessionID) {
			continue
		}
		for _, n := range st.VersionNumbers(s.row.Source, s.Path) {
			rows, err := a.db().SessionsAtPath(ctx, kept.VersionPath(s.Path, n))
			if err != nil {
				return nil, err
			}
			for i := range rows {
				if rows[i].Source == s.row.Source && !seen[rows[i].SID] {
					seen[rows[i].SID] = true
					out = append(out, *a.sessionOf(&rows[i]))
				}
			}
		}
	}
	return out, nil
}

// Forget removes sessions from the index (and each Forgetter) for good,
// and records their files' identities so that `grove index`, `watch` and
// `rebuild` leave each file out while its committed bytes are unchanged
// (SPEC §11; ingest.Indexer.Forget). Other sessions stay as they are,
// forks and sub-agents of a forgotten one included. Errors: those of
// ingest.Indexer.Forget (index_busy without busy, io_error, the index's).
func (a *Archive) Forget(ctx context.Context, sessions []Session, busy func(holder string)) error {
	paths := make([]string, len(sessions))
	for i, s := range sessions {
		paths[i] = s.Path
	}
	return a.ix.Forget(ctx, paths, busy)
}
