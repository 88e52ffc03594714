package serve

import (
	"context"

	"github.com/grove-sessions/grove/archive"
)

// Watch is grove serve's writer (SPEC §9): w.Watch (grove watch's passes
// over opts.Roots) with each pass that indexed or removed something
// announced on hub, naming the sessions it changed (read from r, the
// pages' archive), before onPass (nil: none) sees it. Its answer is
// w.Watch's: nil when ctx ends.
func Watch(ctx context.Context, w, r *archive.Archive, hub *Hub, opts archive.WatchOptions, onPass func(archive.WatchPass) error) error {
	return w.Watch(ctx, opts, func(p archive.WatchPass) error {
		if p.Summary.Indexed > 0 || p.Summary.Removed > 0 {
			hub.Notify(changedSessions(ctx, r, p))
		}
		if onPass == nil {
			return nil
		}
		return onPass(p)
	})
}

// changedSessions are the ids of the sessions a watch pass changed: for a
// change pass, those of its files the index now holds; nil (every session
// may have) when one of them is gone, or for a full pass.
func changedSessions(ctx context.Context, a *archive.Archive, p archive.WatchPass) []string {
	if p.Trigger != "change" {
		return nil
	}
	var ids []string
	for _, f := range p.Files {
		s, err := a.Resolve(ctx, f)
		if err != nil {
			return nil
		}
		ids = append(ids, s.SessionID)
	}
	return ids
}
