package corpusgen

import (
	"fmt"
	"io"
	"os"
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
func (g *gen) forkFrom(pp *plan, pt *tree, parentFile string) error {
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
	g.out.Forked, g.out.Parent, g.out.Prefix = true, pp.path, len(path)
	g.out.ForkEntry = string(appendHex8(nil, pt.ids[e]))
	return nil
}
