package ingest

import (
	"context"
	"runtime"
	"sync"

	"github.com/grove-sessions/grove/index"
	"github.com/grove-sessions/grove/jsonl"
)

// Reading files ahead of the writer: a file read whole into a new session
// row (a cold index, a rebuild, a new file, --force) is parsed on another
// core while the single writer stores the files before it. The read is held
// in a recorder and replayed into the batch in the file's turn, so the index
// gets the same rows in the same order as when each file is read as it is
// stored.

const (
	// prefetchFile is the largest file read ahead, bytes: a bigger one is
	// read as it is stored, so that memory does not grow with it.
	prefetchFile = 8 << 20
	// prefetchBudget bounds the bytes of the files read ahead and not yet
	// stored.
	prefetchBudget = 8 << 20
)

// recorder is a sink that holds one whole read of a session file (its
// entries with their search text, diagnostics, labels and facts) for
// replay.
type recorder struct {
	s      *index.Session
	chunks []recorded
	labels [][2]string
}

type recorded struct {
	rows  []index.Entry
	diags []index.Diagnostic
}

func (r *recorder) Session() *index.Session { return r.s }

func (r *recorder) AddEntries(_ context.Context, rows []index.Entry) error {
	if len(rows) > 0 {
		r.chunks = append(r.chunks, recorded{rows: rows})
	}
	return nil
}

func (r *recorder) AddDiagnostics(_ context.Context, diags []index.Diagnostic) error {
	if len(diags) > 0 {
		r.chunks = append(r.chunks, recorded{diags: diags})
	}
	return nil
}

func (r *recorder) SetLabel(target, label string) {
	r.labels = append(r.labels, [2]string{target, label})
}

// HasEntry answers from the entries recorded so far, as a SessionWriter
// does from those it stored.
func (r *recorder) HasEntry(_ context.Context, id string) (bool, error) {
	for _, c := range r.chunks {
		for i := range c.rows {
			if c.rows[i].EntryID == id {
				return true, nil
			}
		}
	}
	return false, nil
}

// HasCopy is false: a recorder holds a whole read, which counts its own
// copies (sessionReader.copiesBefore) and never asks.
func (r *recorder) HasCopy(context.Context, uint32) (bool, error) { return false, nil }

func (r *recorder) Commit(context.Context) error { return nil }
func (r *recorder) Rollback()                    {}

// replay stores the recorded read in b as readWhole would have, and
// returns the session's state.
func (r *recorder) replay(ctx context.Context, b *index.Batch) (string, error) {
	p := r.s
	s := &index.Session{Path: p.Path, SessionID: p.SessionID, Dialect: p.Dialect}
	w, err := b.Replace(ctx, s)
	if err != nil {
		return "", err
	}
	defer w.Rollback()
	for _, c := range r.chunks {
		if err := w.AddEntries(ctx, c.rows); err != nil {
			return "", err
		}
		if err := w.AddDiagnostics(ctx, c.diags); err != nil {
			return "", err
		}
	}
	for _, l := range r.labels {
		w.SetLabel(l[0], l[1])
	}
	// What the file says of itself and its file facts: the reader's
	// (index.SessionWriter.Session).
	s.SessionID, s.Dialect, s.Version, s.ParentSession, s.Workspace, s.Name = p.SessionID, p.Dialect, p.Version, p.ParentSession, p.Workspace, p.Name
	s.HeaderMs, s.ActivityMs, s.FirstMessage = p.HeaderMs, p.ActivityMs, p.FirstMessage
	s.KindFacts = p.KindFacts
	s.Lines, s.CommittedLen, s.Resumable = p.Lines, p.CommittedLen, p.Resumable
	s.FileSize, s.FileMtimeNs, s.FileDev, s.FileIno, s.HeadCRC, s.TailCRC = p.FileSize, p.FileMtimeNs, p.FileDev, p.FileIno, p.HeadCRC, p.TailCRC
	if err := w.Commit(ctx); err != nil {
		return "", err
	}
	return s.State, nil
}

// parsed is a file read ahead: its recorded read, or the error reading it.
type parsed struct {
	rec  *recorder
	res  FileResult
	err  error
	cost int64
}

// prefetcher reads the eligible files of a run ahead, in order, on every
// core, holding at most prefetchBudget bytes of files not yet taken.
type prefetcher struct {
	cancel   context.CancelFunc
	slots    map[string]chan parsed
	released chan int64
	wg       sync.WaitGroup
}

// readAhead reports whether w is read whole into a new session row, and
// small enough to be held.
func readAhead(w work, force bool) bool {
	return w.st.Regular && !IsCompressed(w.path) && w.cost <= prefetchFile &&
		(w.old == nil || force) && w.cost == w.st.Size
}

// startPrefetch starts reading ahead the files of todo that readAhead
// allows; nil when there are fewer than two.
func startPrefetch(ctx context.Context, todo []work, force bool) *prefetcher {
	var jobs []work
	for _, w := range todo {
		if readAhead(w, force) {
			jobs = append(jobs, w)
		}
	}
	if len(jobs) < 2 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetcher{cancel: cancel, slots: make(map[string]chan parsed, len(jobs)), released: make(chan int64, len(jobs))}
	type job struct {
		w   work
		out chan<- parsed
	}
	js := make([]job, len(jobs))
	for i, w := range jobs {
		ch := make(chan parsed, 1)
		p.slots[w.path] = ch // the consumer's alone: workers send on js[i].out
		js[i] = job{w, ch}
	}
	queue := make(chan job)
	p.wg.Add(1)
	go func() { // hands out the jobs in order, within the budget
		defer p.wg.Done()
		defer close(queue)
		var inflight int64
		for _, j := range js {
			for inflight > 0 && inflight+j.w.cost > prefetchBudget {
				select {
				case c := <-p.released:
					inflight -= c
				case <-ctx.Done():
					return
				}
			}
			inflight += j.w.cost
			select {
			case queue <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range max(1, runtime.GOMAXPROCS(0)) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range queue {
				j.out <- parseWhole(ctx, j.w)
			}
		}()
	}
	return p
}

// take returns the read of path if it is read ahead (waiting for it), and
// whether it is.
func (p *prefetcher) take(path string) (parsed, bool) {
	if p == nil {
		return parsed{}, false
	}
	ch, ok := p.slots[path]
	if !ok {
		return parsed{}, false
	}
	delete(p.slots, path)
	got := <-ch
	return got, true
}

// done gives back the budget of a read taken.
func (p *prefetcher) done(got parsed) { p.released <- got.cost }

// stop ends the reading ahead and waits for it.
func (p *prefetcher) stop() {
	if p == nil {
		return
	}
	p.cancel() // a worker's send never blocks: each slot holds its one read
	p.wg.Wait()
}

// parseWhole reads the file of w whole into a recorder.
func parseWhole(ctx context.Context, w work) parsed {
	out := parsed{cost: w.cost, res: FileResult{Change: Whole}}
	f, size, err := jsonl.OpenFile(w.path)
	if err != nil {
		out.err = err
		return out
	}
	defer f.Close()
	cf := &countingFile{f: f, path: w.path}
	rec := &recorder{}
	out.err = readWholeInto(ctx, func(s *index.Session) (sink, error) { rec.s = s; return rec, nil }, true, cf, size, w.st, &out.res)
	out.res.BytesRead = cf.n
	if out.err == nil {
		out.rec = rec
	}
	return out
}

// storeParsed stores a file read ahead into b.
func storeParsed(ctx context.Context, b *index.Batch, got parsed) (FileResult, error) {
	res := got.res
	if got.err != nil {
		return res, got.err
	}
	state, err := got.rec.replay(ctx, b)
	if err != nil {
		return res, err
	}
	res.State = jsonl.State(state)
	return res, nil
}
