package corpusgen

// extras writes the entries that come between turns: branches,
// compactions, names, model and thinking-level changes, labels and
// extension messages. The plain dialect has only branches and metadata.
func (g *gen) extras() {
	r := g.r
	steps := []struct {
		ok bool
		fn func()
	}{
		{g.turns > 2 && g.tr.len() > 6 && r.Intn(100) < 6, g.branch},
		{g.pi && g.sinceCmp >= g.cmpEvery && g.tr.len() > 10, g.compaction},
		{(g.turns == 2 && r.Intn(10) < 6) || (g.turns > 2 && r.Intn(100) == 0), g.name},
		{r.Intn(100) < 2, g.modelChange},
		{g.pi && r.Intn(100) < 3, g.thinkingChange},
		{g.pi && g.leaf >= 0 && r.Intn(100) < 4, g.label}, // a label needs an entry to bookmark
		{g.pi && r.Intn(100) < 2, g.customMessage},
		{g.pi && r.Intn(100) < 1, g.custom},
	}
	for _, s := range steps {
		if g.done {
			return
		}
		if s.ok {
			s.fn()
		}
	}
}

// branch moves the leaf to an earlier entry of the current path, as pi's
// /tree does, so the next turn starts a new branch there. In pi files it
// is half the time recorded with a branch_summary of the path left.
func (g *gen) branch() {
	r, tr := g.r, &g.tr
	target := tr.up(g.leaf, r.Range(2, 40))
	for i := 0; i < 10 && tr.kinds[target]&15 != kindAssistant && tr.parents[target] >= 0; i++ {
		target = tr.parents[target]
	}
	if target == g.leaf {
		return
	}
	if !g.pi || r.Intn(2) == 0 {
		g.leaf = target
		return
	}
	from := tr.ids[g.leaf]
	g.begin("branch_summary", target, entryGap.Draw(r))
	g.line = append(appendKey(g.line, "fromId"), '"')
	g.line = append(appendHex8(g.line, from), '"')
	g.txt = g.txt[:0]
	g.prose(r.Range(200, 1500))
	g.line = appendStr(g.line, "summary", g.spliced(0))
	g.commit(kindOther)
}

// compaction writes pi's compaction entry: a structured summary of the
// path so far, the first entry kept (a user message a few turns up) and
// the tokens before.
func (g *gen) compaction() {
	r, tr := g.r, &g.tr
	first := tr.up(g.leaf, r.Range(4, 30))
	for i := 0; i < 20 && tr.kinds[first]&15 != kindUser && tr.parents[first] >= 0; i++ {
		first = tr.parents[first]
	}
	tokens := g.sinceCmp/4 + int64(r.Intn(4000))
	g.begin("compaction", g.leaf, entryGap.Draw(r))
	g.txt = g.txt[:0]
	for _, h := range []string{"## Goal\n", "## Constraints & Preferences\n", "## Progress\n### Done\n",
		"### In Progress\n", "## Key Decisions\n", "## Next Steps\n", "## Critical Context\n"} {
		g.txt = append(g.txt, h...)
		for range r.Range(1, 4) {
			g.txt = append(g.txt, "- "...)
			g.prose(r.Range(40, 200))
			g.txt = append(g.txt, '\n')
		}
		g.txt = append(g.txt, '\n')
	}
	g.txt = append(g.txt, "<read-files>\n"...)
	for range r.Range(1, 6) {
		g.txt = append(g.t.file(g.txt), '\n')
	}
	g.txt = append(g.txt, "</read-files>"...)
	g.line = appendStr(g.line, "summary", g.spliced(0))
	g.line = append(appendKey(g.line, "firstKeptEntryId"), '"')
	g.line = append(appendHex8(g.line, tr.ids[first]), '"')
	g.line = appendInt(g.line, "tokensBefore", tokens)
	g.line = append(g.line, `,"details":{"readFiles":[`...)
	for i := range r.Range(1, 4) {
		if i > 0 {
			g.line = append(g.line, ',')
		}
		g.line = appendString(g.line, g.t.ws.files[r.Intn(len(g.t.ws.files))])
	}
	g.line = append(g.line, `],"modifiedFiles":[`...)
	g.line = appendString(g.line, g.t.ws.files[r.Intn(len(g.t.ws.files))])
	g.line = append(g.line, "]}"...)
	g.commit(kindOther)
	g.sinceCmp, g.cmpEvery = 0, int64(r.Range(150<<10, 600<<10))
}

// name gives the session a name: pi's session_info, or plain metadata
// "name".
func (g *gen) name() {
	r := g.r
	title := enTitles[r.Intn(len(enTitles))]
	if g.zh {
		title = zhTitles[r.Intn(len(zhTitles))]
	}
	if g.pi {
		g.begin("session_info", g.leaf, entryGap.Draw(r))
		g.line = appendStr(g.line, "name", title)
	} else {
		g.begin("metadata", g.leaf, entryGap.Draw(r))
		g.line = appendStr(g.line, "key", "name")
		g.line = appendStr(g.line, "value", title)
	}
	g.commit(kindOther)
	g.out.Name = title
	if g.pi && !g.done {
		g.names = append(g.names, named{at: int64(g.leaf), name: title})
	}
}

// modelChange switches the model: pi's model_change, or plain metadata
// "model" with an object value.
func (g *gen) modelChange() {
	r := g.r
	g.model = pickModel(r)
	m := models[g.model]
	if g.pi {
		g.begin("model_change", g.leaf, entryGap.Draw(r))
		g.line = appendStr(g.line, "provider", m.provider)
		g.line = appendStr(g.line, "modelId", m.id)
	} else {
		g.begin("metadata", g.leaf, entryGap.Draw(r))
		g.line = appendStr(g.line, "key", "model")
		g.line = append(g.line, `,"value":{"provider":`...)
		g.line = appendString(g.line, m.provider)
		g.line = appendStr(g.line, "modelId", m.id)
		g.line = append(g.line, '}')
	}
	g.commit(kindOther)
}

func (g *gen) thinkingChange() {
	g.thinking = g.r.Intn(len(thinkingLevels))
	g.begin("thinking_level_change", g.leaf, entryGap.Draw(g.r))
	g.line = appendStr(g.line, "thinkingLevel", thinkingLevels[g.thinking])
	g.commit(kindOther)
}

// label bookmarks an entry of the current path; one label in ten clears
// (pi writes no label field then).
func (g *gen) label() {
	r := g.r
	target := g.tr.up(g.leaf, r.Range(0, 20))
	g.begin("label", g.leaf, entryGap.Draw(r))
	g.line = append(appendKey(g.line, "targetId"), '"')
	g.line = append(appendHex8(g.line, g.tr.ids[target]), '"')
	if r.Intn(10) > 0 {
		g.line = appendStr(g.line, "label", labelNames[r.Intn(len(labelNames))])
	}
	g.commit(kindOther)
}

// note writes a small entry of either dialect: a label (pi) or a metadata
// note (plain).
func (g *gen) note() {
	switch g.d {
	case "claude", "codex", "messages":
		g.smallEntry()
		return
	}
	if g.pi {
		g.label()
		return
	}
	g.begin("metadata", g.leaf, entryGap.Draw(g.r))
	g.line = appendStr(g.line, "key", "note")
	g.line = appendStr(g.line, "value", labelNames[g.r.Intn(len(labelNames))])
	g.commit(kindOther)
}

// customMessage is an extension's message that enters the model's context.
func (g *gen) customMessage() {
	r := g.r
	g.begin("custom_message", g.leaf, entryGap.Draw(r))
	g.line = appendStr(g.line, "customType", customTypes[r.Intn(len(customTypes))])
	g.txt = g.txt[:0]
	g.prose(r.Range(40, 600))
	if r.Intn(2) == 0 {
		g.line = appendStr(g.line, "content", g.spliced(0))
	} else {
		g.line = append(g.line, `,"content":[{"type":"text"`...)
		g.line = append(appendStr(g.line, "text", g.spliced(0)), "}]"...)
	}
	g.line = appendBool(g.line, "display", r.Intn(4) > 0)
	if r.Intn(3) == 0 {
		g.line = appendInt(append(g.line, `,"details":{`...), "step", int64(r.Range(1, 20)))
		g.line = append(g.line, '}')
	}
	g.commit(kindOther)
}

// custom is an extension's state: kept in the tree, never in context.
func (g *gen) custom() {
	r := g.r
	g.begin("custom", g.leaf, entryGap.Draw(r))
	g.line = appendStr(g.line, "customType", customTypes[r.Intn(len(customTypes))])
	g.line = appendBool(append(g.line, `,"data":{`...), "enabled", r.Intn(2) == 0)
	g.line = append(appendInt(g.line, "step", int64(r.Range(1, 20))), '}')
	g.commit(kindOther)
}
