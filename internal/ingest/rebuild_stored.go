package ingest

import (
	"context"
	"fmt"
	"strings"

	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// StoredRebuildOptions says what RebuildStored reads.
type StoredRebuildOptions struct {
	// Sources are the sources whose sessions are rebuilt; empty means
	// every source the index holds.
	Sources []string
	// Busy and Progress are IndexOptions'.
	Busy     func(holder string)
	Progress func(Progress)
}

// RebuildStored is `grove rebuild` with the index in PostgreSQL (SPEC
// §10): every session of opts' sources is read again from the committed
// bytes the index holds, not from the files (which may be on other
// machines), and its rows are made again as `grove index` makes them from
// a file, one session per transaction: readers see each session's old
// rows or its new ones. The stored bytes stay as they are. A session
// whose file had an unterminated tail keeps that diagnostic (the tail is
// not committed, so it was never stored). Each source's advisory lock is
// held while its sessions are rebuilt (Lock).
//
// Errors: stale_index when a session's stored bytes are missing, the
// index's errors, ctx's (the sessions rebuilt before it stay).
func (ix *Indexer) RebuildStored(ctx context.Context, opts StoredRebuildOptions) (IndexSummary, error) {
	sum := IndexSummary{Failed: []Failure{}, Unsupported: []Failure{}}
	if !ix.db.IsServer() {
		return sum, fmt.Errorf("RebuildStored: the index holds no committed bytes (SQLite)")
	}
	sources := opts.Sources
	if len(sources) == 0 {
		var err error
		if sources, err = ix.db.ServerSources(ctx); err != nil {
			return sum, err
		}
	}
	own := ix.db.Source()
	defer ix.db.SetSource(own)
	var p Progress
	for _, src := range sources {
		ix.db.SetSource(src)
		rows, err := ix.db.SessionsOfSource(ctx, src)
		if err != nil {
			return sum, err
		}
		p.FilesTotal += len(rows)
		for _, s := range rows {
			p.BytesTotal += s.CommittedLen
		}
	}
	if p.FilesTotal == 0 {
		return sum, errs.New(errs.CodeUnknownSession, "the index holds no session to rebuild"+sourceWords(opts.Sources)).In(ix.db.File()).WithHint("run `grove index` on the machines that have the session files")
	}
	for _, src := range sources {
		ix.db.SetSource(src)
		if err := ix.rebuildSource(ctx, opts, &sum, &p); err != nil {
			return sum, err
		}
	}
	ix.analyzeAfter(ctx, sum.Entries)
	return sum, nil
}

// rebuildSource is RebuildStored for the source a.db writes as.
func (ix *Indexer) rebuildSource(ctx context.Context, opts StoredRebuildOptions, sum *IndexSummary, p *Progress) error {
	unlock, err := ix.Lock(ctx, opts.Busy)
	if err != nil {
		return err
	}
	defer unlock()
	rows, err := ix.db.SessionsOfSource(ctx, ix.db.Source()) // again, under the lock
	if err != nil {
		return err
	}
	for i := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		old := &rows[i]
		p.Path = old.Path
		if opts.Progress != nil {
			opts.Progress(*p)
		}
		sum.Files++
		p.Files++
		if IsCompressed(old.Path) { // never read, so nothing stored: its row stays
			sum.Unchanged++
			sum.Unsupported = append(sum.Unsupported, Failure{Path: old.Path, Code: errs.CodeUnsupportedCompression})
			continue
		}
		res, err := ix.rebuildOne(ctx, old)
		if err != nil {
			return err
		}
		sum.Indexed++
		sum.Entries += res.Entries
		sum.BytesRead += res.BytesRead
		if res.State != jsonl.StateOK {
			sum.Damaged++
		}
		p.Bytes += old.CommittedLen
	}
	return nil
}

// rebuildOne makes the rows of session old again from its stored bytes.
func (ix *Indexer) rebuildOne(ctx context.Context, old *index.Session) (FileResult, error) {
	var tail []index.Diagnostic
	if old.Diagnostics > 0 {
		diags, err := ix.db.Diagnostics(ctx, old.SID)
		if err != nil {
			return FileResult{}, err
		}
		for _, d := range diags {
			if d.Code == string(errs.CodeUnterminatedTail) {
				tail = append(tail, d)
			}
		}
	}
	f, _ := ix.db.OpenStored(old)
	defer f.Close()
	cf := &countingFile{f: f, path: old.Path}
	st := FileStat{Size: old.FileSize, MtimeNs: old.FileMtimeNs, Dev: old.FileDev, Ino: old.FileIno, Regular: true}
	b, err := ix.db.BeginBatch(ctx)
	if err != nil {
		return FileResult{}, err
	}
	b.KeepStored()
	res := FileResult{Change: Whole}
	err = readWholeInto(ctx, func(s *index.Session) (sink, error) {
		w, err := b.Replace(ctx, s)
		if err != nil {
			return nil, err
		}
		return &keepTail{SessionWriter: w, tail: tail, name: old.Name, gone: old.Gone}, nil
	}, false, cf, old.CommittedLen, st, &res)
	if err == nil {
		err = b.Commit()
	} else {
		b.Rollback()
	}
	res.BytesRead = cf.n
	return res, err
}

// keepTail is a session writer that adds, before it commits, the
// unterminated_tail diagnostic of the file as it was last read: the tail
// is not among the committed bytes a rebuild reads. It also keeps the
// session's name when the bytes give none: a Claude Code sub-agent's comes
// from the agent-ID.meta.json beside its file (SPEC §3.4), not stored.
type keepTail struct {
	*index.SessionWriter
	tail []index.Diagnostic
	name string
	gone bool // the session's file is gone (SPEC §11): it stays so
}

func (k *keepTail) Commit(ctx context.Context) error {
	if s := k.Session(); s.Name == "" {
		s.Name = k.name
	}
	k.Session().Gone = k.Session().Gone || k.gone
	if len(k.tail) > 0 {
		if err := k.AddDiagnostics(ctx, k.tail); err != nil {
			return err
		}
		k.Session().Resumable = false
	}
	return k.SessionWriter.Commit(ctx)
}

// sourceWords is " of source X" for the sources asked for, "" for all.
func sourceWords(sources []string) string {
	if len(sources) == 0 {
		return ""
	}
	return fmt.Sprintf(" of source %q", strings.Join(sources, ", "))
}
