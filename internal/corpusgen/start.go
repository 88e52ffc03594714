package corpusgen

import "path"

// newGen prepares the generator of the session p, writing to w. Everything
// random about the session comes from its own stream, so sessions can be
// written in any order, by any number of workers.
func newGen(o *Options, p *plan, ws *workspace, w *fileWriter) *gen {
	r := newRNG(o.Seed, 1, p.stream)
	g := &gen{
		r: r, t: text{r: r, ws: ws}, o: o, p: p, w: w,
		pi:     p.dialect == "pi",
		d:      p.dialect,
		salt:   uint32(r.Uint64()),
		next:   1,
		taken:  map[uint32]bool{},
		mk:     newMarkers(r),
		clock:  p.start,
		target: p.size,
		leaf:   -1,
		model:  pickModel(r),
		image:  p.image,
		out: &File{Path: p.path, Dialect: p.dialect, Session: p.id, Workspace: ws.cwd,
			Big: p.big, Damage: p.damage},
		cmpEvery: int64(r.Range(150<<10, 600<<10)),
	}
	if r.Intn(100) >= 70 { // thinking is off in most sessions (see doc.go)
		g.thinking = r.Range(1, len(thinkingLevels)-1)
	}
	g.damageAt = int64(float64(p.size) * (0.2 + 0.6*r.Float64()))
	switch p.dialect {
	case "messages":
		g.lineIDs = true
		g.out.Workspace = path.Dir(p.path) // the folder that holds the log (SPEC §3.6)
	case "claude":
		g.claudeSetup()
	case "codex":
		g.lineIDs = true
	}
	return g
}

// header writes pi's session header, version 3, naming the parent file
// when the session is a fork.
func (g *gen) header(parent *gen) {
	b := append(g.line[:0], `{"type":"session","version":3`...)
	b = appendStr(b, "id", g.p.id)
	b = append(appendKey(b, "timestamp"), '"')
	b = append(appendISO(b, g.p.start), '"')
	b = appendStr(b, "cwd", g.out.Workspace)
	if parent != nil {
		b = appendStr(b, "parentSession", parent.p.path)
	}
	b = append(b, "}\n"...)
	g.w.write(b)
	g.lines++
	g.line = b[:0]
}

// opening writes the first entries of a new session: in pi files the model
// and thinking level pi records when a session starts; in plain files the
// workspace as metadata "cwd" (SPEC §3.3).
func (g *gen) opening() {
	if !g.pi {
		g.begin("metadata", -1, 0)
		g.line = appendStr(g.line, "key", "cwd")
		g.line = appendStr(g.line, "value", g.out.Workspace)
		g.commit(kindOther)
		return
	}
	if g.r.Intn(10) < 7 {
		m := models[g.model]
		g.begin("model_change", g.leaf, 0)
		g.line = appendStr(g.line, "provider", m.provider)
		g.line = appendStr(g.line, "modelId", m.id)
		g.commit(kindOther)
	}
	if g.r.Intn(2) == 0 && !g.done {
		g.begin("thinking_level_change", g.leaf, g.r.Range(1, 50))
		g.line = appendStr(g.line, "thinkingLevel", thinkingLevels[g.thinking])
		g.commit(kindOther)
	}
}
