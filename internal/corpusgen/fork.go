package corpusgen

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

// forkFrom begins a fork as pi's /fork does: after the header (which names
// the parent in parentSession), the path from the root to one entry of the
// parent, copied byte for byte from the parent's file (same ids,
// timestamps and bodies). The conversation then continues from its last
// entry. pt is the parent's tree, parentFile its path on disk.
//
// The fork entry is drawn among the parent's entries that end within the
// first 60 % of the fork's target size and are older than the fork's
// header, so the copy leaves room for new entries and time runs forward.
func (g *gen) forkFrom(pp *plan, pt *tree, names []named, parentFile string) error {
	r := g.r
	limit := g.target * 6 / 10
	k := 0
	for k < pt.len() && pt.offsets[k]+int64(pt.lens[k]) <= limit && pt.times[k] < g.p.start {
		k++
	}
	e := int32(r.Intn(max(k, 1)))
	for i := 0; i < 10 && pt.kinds[e]&15 != kindAssistant && pt.parents[e] >= 0; i++ {
		e = pt.parents[e] // prefer the end of an assistant turn, as pi's fork points are
	}
	switch g.d {
	case "claude":
		return g.claudeFork(pp, pt, names, parentFile, e)
	case "codex":
		// Codex cuts a fork strictly before a user message: the copy ends
		// just before the last prompt up to e+1.
		for j := e + 1; j >= 1; j-- {
			if j < int32(pt.len()) && pt.kinds[j]&15 == kindUser {
				e = j - 1
				break
			}
		}
		return g.codexFork(pp, pt, parentFile, e)
	}
	var path []int32
	for i := e; i >= 0; i = pt.parents[i] {
		path = append(path, i)
	}
	f, err := os.Open(parentFile)
	if err != nil {
		return err
	}
	defer f.Close()
	for j := len(path) - 1; j >= 0; j-- {
		i := path[j]
		n := int64(pt.lens[i]) + 1 // the line and its LF
		off := g.w.n
		got, err := g.w.bw.ReadFrom(io.NewSectionReader(f, pt.offsets[i], n))
		if err == nil && got != n {
			err = fmt.Errorf("copied %d of %d bytes of line at offset %d", got, n, pt.offsets[i])
		}
		if err != nil {
			return fmt.Errorf("fork from %s: %w", parentFile, err)
		}
		g.w.n += n
		g.lines++
		g.taken[pt.ids[i]] = true
		g.tr.add(pt.ids[i], int32(g.tr.len())-1, pt.kinds[i], off, int(pt.lens[i]), pt.times[i])
		g.out.Entries++
		for m := range nMarkers {
			if pt.kinds[i]>>4&(1<<m) != 0 {
				g.out.Markers[m]++
			}
		}
		g.sinceCmp += n
	}
	g.leaf = int32(g.tr.len() - 1)
	for _, n := range names { // the name the copied path carries: pi's last session_info on it
		for j, i := range path {
			if int64(i) == n.at {
				g.out.Name = n.name
				g.names = append(g.names, named{at: int64(len(path) - 1 - j), name: n.name})
			}
		}
	}
	g.out.Forked, g.out.Parent, g.out.Prefix = true, pp.path, len(path)
	g.out.ForkEntry = string(appendHex8(nil, pt.ids[e]))
	return nil
}

// claudeFork begins a fork as claude --resume --fork-session does: every
// line of the parent up to the fork entry e (metadata and other branches
// included) copied with its uuids, the parent's sessionId re-stamped with
// the fork's (both are 36-character UUIDs, so offsets do not move), then
// the conversation goes on from e. The uuids of new entries take the
// parent's form, so their parents can be named.
func (g *gen) claudeFork(pp *plan, pt *tree, names []named, parentFile string, e int32) error {
	end := pt.offsets[e] + int64(pt.lens[e]) + 1
	for _, n := range names { // the last custom-title line copied
		if n.at < end {
			g.out.Name = n.name
			g.names = append(g.names, n)
		}
	}
	buf := make([]byte, end)
	f, err := os.Open(parentFile)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, 0); err != nil {
		return fmt.Errorf("fork from %s: %w", parentFile, err)
	}
	buf = bytes.ReplaceAll(buf, []byte(`"sessionId":"`+pp.id+`"`), []byte(`"sessionId":"`+g.p.id+`"`))
	g.w.write(buf)
	lines := bytes.Count(buf, []byte{'\n'})
	g.lines += lines
	g.out.Metadata += lines - int(e) - 1
	for i := int32(0); i <= e; i++ {
		g.copied(pt, i, pt.ids[i], pt.parents[i], pt.offsets[i])
	}
	g.leaf = e
	g.sinceCmp = end
	g.out.Forked, g.out.Parent, g.out.Prefix = true, pp.path, int(e)+1
	g.out.ForkEntry = string(g.appendUUID(nil, pt.ids[e]))
	return nil
}

// codexFork begins a fork as codex fork does: after the fork's own
// session_meta (forked_from_id), the parent's items up to e, each
// re-stamped with a new envelope timestamp (same length, so the copy is
// byte for byte after it), in one chain as every rollout.
func (g *gen) codexFork(pp *plan, pt *tree, parentFile string, e int32) error {
	f, err := os.Open(parentFile)
	if err != nil {
		return err
	}
	defer f.Close()
	stamp := []byte(`{"timestamp":"`)
	for i := int32(0); i <= e; i++ {
		line := make([]byte, pt.lens[i]+1)
		if _, err := f.ReadAt(line, pt.offsets[i]); err != nil {
			return fmt.Errorf("fork from %s: %w", parentFile, err)
		}
		if bytes.HasPrefix(line, stamp) && len(line) > len(stamp)+24 {
			appendISO(line[len(stamp):len(stamp)], g.clock+int64(i)) // the fork writes them all at once
		}
		off := g.w.n
		g.w.write(line)
		g.lines++
		g.copied(pt, i, uint32(g.lines), i-1, off)
	}
	g.clock += int64(e) + 1
	g.leaf = e
	g.sinceCmp = g.w.n
	g.out.Forked, g.out.Parent, g.out.Prefix = true, pp.path, int(e)+1
	g.out.ForkEntry = "L" + strconv.Itoa(int(pt.ids[e]))
	return nil
}

// copied adds the parent's entry i to the fork's tree as id, child of
// parent, at off, counting it and its markers.
func (g *gen) copied(pt *tree, i int32, id uint32, parent int32, off int64) {
	g.taken[pt.ids[i]] = true
	g.tr.add(id, parent, pt.kinds[i], off, int(pt.lens[i]), pt.times[i])
	g.out.Entries++
	for m := range nMarkers {
		if pt.kinds[i]>>4&(1<<m) != 0 {
			g.out.Markers[m]++
		}
	}
}
