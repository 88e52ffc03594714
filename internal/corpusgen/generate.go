package corpusgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Generate writes a corpus into dir as o asks and returns its manifest,
// which it also writes to dir/manifest.json. Files go to
// dir/pi/--<cwd>--/<time>_<uuid>.jsonl (pi's layout) and
// dir/plain/<cwd>/<uuid>.jsonl.
//
// dir is created if needed. It must be empty unless o.Force is set (then
// files of the same name are overwritten and others are left alone).
// Errors: ErrBadOptions, ErrNotEmpty, the context's error when ctx ends
// (files written so far stay), or an I/O error naming the file.
func Generate(ctx context.Context, dir string, o Options) (*Manifest, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := prepareDir(dir, o.Force); err != nil {
		return nil, err
	}
	nws := o.Workspaces
	if nws == 0 {
		nws = defaultWorkspaces(o.Size)
	}
	ws := makeWorkspaces(newRNG(o.Seed, 3), nws)
	plans := planCorpus(o, ws)

	// A job is a session and the forks made from it (and from them): they
	// run in one goroutine, parent first. The largest jobs start first.
	var heads []*plan
	jobSize := map[int]int64{}
	for _, p := range plans {
		jobSize[p.jobHead] += p.size
		if p.jobHead == p.index {
			heads = append(heads, p)
		}
	}
	sort.SliceStable(heads, func(i, j int) bool { return jobSize[heads[i].index] > jobSize[heads[j].index] })

	workers := o.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	files := make([]File, len(plans))
	jobs := make(chan *plan)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range min(workers, len(heads)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &scratch{bw: bufio.NewWriterSize(nil, 1<<20)}
			for p := range jobs {
				if err := s.job(ctx, dir, &o, ws, plans, p, nil, files); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	for _, h := range heads {
		select {
		case jobs <- h:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := &Manifest{Generator: Version, Options: o, Files: files}
	for _, w := range ws {
		m.Workspaces = append(m.Workspaces, w.cwd)
	}
	var counts [nMarkers]int
	for _, f := range files {
		m.Bytes += f.Bytes
		m.Entries += int64(f.Entries)
		for i, c := range f.Markers {
			counts[i] += c
		}
	}
	for i, w := range MarkerWords {
		m.Markers = append(m.Markers, Marker{Word: w, Every: markerEvery[i], Entries: counts[i]})
	}
	if err := m.write(dir); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	return m, nil
}

// prepareDir creates dir, or checks that it is empty unless force.
func prepareDir(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(ents) > 0 && !force:
		return fmt.Errorf("%w: %s (use --force to write into it anyway)", ErrNotEmpty, dir)
	}
	return nil
}

// scratch is what one worker reuses from session to session.
type scratch struct {
	bw        *bufio.Writer
	line, txt []byte
}

// job writes the session p (a fork of parent when parent is set) and then
// its forks, depth first: a parent's tree is held only until its last
// fork is written.
func (s *scratch) job(ctx context.Context, dir string, o *Options, ws []workspace, plans []*plan, p *plan, parent *gen, files []File) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g, err := s.session(ctx, dir, o, ws, plans, p, parent)
	if err != nil {
		return err
	}
	files[p.index] = *g.out
	for _, k := range p.kids {
		if err := s.job(ctx, dir, o, ws, plans, plans[k], g, files); err != nil {
			return err
		}
	}
	return nil
}

// session writes one file and returns its generator, whose tree a fork
// needs.
func (s *scratch) session(ctx context.Context, dir string, o *Options, ws []workspace, plans []*plan, p *plan, parent *gen) (*gen, error) {
	name := filepath.Join(dir, filepath.FromSlash(p.path))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s.bw.Reset(f)
	g := newGen(o, p, &ws[p.ws], &fileWriter{f: f, bw: s.bw})
	g.line, g.txt = s.line[:0], s.txt[:0]
	for _, k := range p.kids {
		if plans[k].subagent {
			g.agents = append(g.agents, plans[k])
		}
	}
	switch {
	case p.subagent:
		g.sessionID = parent.p.id
		g.out.Subagent, g.out.Parent, g.out.ParentSession = true, parent.p.path, parent.p.id
		// A sub-agent without a title line is named by its meta.json's
		// description (SPEC §3.4, grove's rule for sub-agents).
		g.out.Name = subagentDescription
		meta := strings.TrimSuffix(name, ".jsonl") + ".meta.json"
		if err := os.WriteFile(meta, []byte(`{"agentType":"general-purpose","description":"`+subagentDescription+`"}`+"\n"), 0o644); err != nil {
			return nil, err
		}
	case p.dialect == "pi":
		g.header(parent)
	case p.dialect == "codex":
		fork := ""
		if parent != nil {
			fork = parent.p.id
		}
		g.codexHeader(fork)
	}
	if parent != nil && !p.subagent && p.dialect == "claude" {
		g.uuidTail, g.uuidSalt = parent.uuidTail, parent.uuidSalt // copied uuids are named as the parent made them
	}
	switch {
	case parent != nil && !p.subagent:
		parentFile := filepath.Join(dir, filepath.FromSlash(parent.p.path))
		if err := g.forkFrom(parent.p, &parent.tr, parent.names, parentFile); err != nil {
			return nil, err
		}
	case p.dialect == "claude":
		g.claudeOpening()
	case p.dialect == "pi" || p.dialect == "plain":
		g.opening()
	}
	g.run(func() bool { return ctx.Err() != nil })
	s.line, s.txt = g.line, g.txt // keep the grown buffers
	if err := s.bw.Flush(); err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.out.Bytes, g.out.Lines = g.w.n, g.lines
	g.shape()
	if len(p.kids) == 0 {
		g.tr = tree{} // no fork will need it
	}
	return g, nil
}

// shape fills the tree facts of the manifest entry: roots, leaves, branch
// points and the active leaf (the leaf on the highest line; in a Claude
// file every leaf is on one side of the sidechain rule, so the same).
func (g *gen) shape() {
	tr := &g.tr
	kids := make([]uint8, tr.len())
	for _, p := range tr.parents {
		if p >= 0 && kids[p] < 2 {
			kids[p]++
		}
	}
	last := -1
	for i, p := range tr.parents {
		if p == -1 {
			g.out.Roots++
		}
		switch kids[i] {
		case 0:
			g.out.Leaves++
			last = i
		case 2:
			g.out.BranchPoints++
		}
	}
	if last < 0 {
		return
	}
	id := tr.ids[last]
	switch g.d {
	case "claude":
		g.out.ActiveLeaf = string(g.appendUUID(nil, id))
	case "codex", "messages":
		g.out.ActiveLeaf = "L" + strconv.Itoa(int(id))
	default:
		g.out.ActiveLeaf = string(appendHex8(nil, id))
	}
}

// subagentDescription is the description of every generated sub-agent, in
// its Task call and its meta.json.
const subagentDescription = "Explore the code"
