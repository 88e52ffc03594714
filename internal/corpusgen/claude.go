package corpusgen

import "strconv"

// Claude Code transcripts (SPEC §3.4, FORMATS.md §1.12): the shape of
// 2.1.x lines. Every entry line starts with parentUuid, isSidechain,
// (agentId,) userType, cwd, sessionId, version, gitBranch and type and
// ends with uuid and timestamp; an API response is one line per content
// block, chained; tool results are user lines parented to their own
// tool_use line, with sourceToolAssistantUUID.

const claudeVersion = "2.1.78"

// claudeKeys are Claude Code's tool names and input keys.
var claudeKeys = inputKeys{bash: "Bash", read: "Read", edit: "Edit", write: "Write",
	command: "command", path: "file_path", old: "old_string", new: "new_string", content: "content"}

var claudeModels = []string{"claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101"}

// claudeSetup draws what every line of a Claude session repeats.
func (g *gen) claudeSetup() {
	r := g.r
	tail := []byte{'-'}
	for range 12 {
		tail = append(tail, hexDigits[r.Intn(16)])
	}
	g.uuidTail = string(tail)
	g.uuidSalt = uint32(r.Uint64())
	g.sessionID = g.p.id
	if g.p.subagent {
		g.agent = g.p.agent
	}
}

// appendUUID appends the version 4 uuid of the entry id: its 8 hex digits,
// 32 bits drawn from it, and the session's last group, so uuids are unique
// within a session.
func (g *gen) appendUUID(b []byte, id uint32) []byte {
	h := permute(id, g.uuidSalt)
	b = append(appendHex8(b, id), '-')
	b = append(b, hexDigits[h>>28&15], hexDigits[h>>24&15], hexDigits[h>>20&15], hexDigits[h>>16&15], '-', '4',
		hexDigits[h>>12&15], hexDigits[h>>8&15], hexDigits[h>>4&15], '-', "89ab"[h>>2&3], hexDigits[h&3|h>>24&12])
	b = append(b, hexDigits[h>>8&15^h>>20&15], hexDigits[h>>12&15^h>>28&15])
	return append(b, g.uuidTail...)
}

// cbegin starts a Claude entry line of type typ, child of parent (-1: a
// root), dt ms after the last; the planned missing parent happens here.
func (g *gen) cbegin(typ string, parent int32, dt int) {
	g.clock += int64(dt)
	g.parent, g.carried, g.streamd = parent, 0, 0
	if g.id = g.preset; g.id == 0 {
		g.id = g.newID()
	}
	g.preset = 0
	g.mk.tick()
	b := append(g.line[:0], `{"parentUuid":`...)
	switch {
	case g.p.damage == DamageMissingParent && !g.damaged && g.w.n >= g.damageAt && parent >= 0:
		g.damaged, g.parent = true, -2
		g.out.DamageLine = g.lines + 1
		b = append(g.appendUUID(append(b, '"'), permute(^uint32(0), g.salt)), '"')
	case parent < 0:
		b = append(b, "null"...)
	default:
		b = append(g.appendUUID(append(b, '"'), g.tr.ids[parent]), '"')
	}
	b = appendBool(b, "isSidechain", g.p.subagent)
	if g.agent != "" {
		b = appendStr(b, "agentId", g.agent)
	}
	b = appendStr(b, "userType", "external")
	b = appendStr(b, "cwd", g.out.Workspace)
	b = appendStr(b, "sessionId", g.sessionID)
	b = appendStr(b, "version", claudeVersion)
	b = appendStr(b, "gitBranch", "main")
	b = appendStr(b, "type", typ)
	g.line = b
}

// meta writes a metadata line (no uuid: not an entry) unless the session
// is over.
func (g *gen) meta(b []byte) {
	if g.done {
		return
	}
	g.w.write(append(b, '\n'))
	g.lines++
	g.out.Metadata++
}

// claudeOpening writes the permission-mode line 2.1.x starts a main
// session with; a sub-agent file starts with its prompt.
func (g *gen) claudeOpening() {
	if g.p.subagent {
		return
	}
	b := append(g.line[:0], `{"type":"permission-mode","permissionMode":"default"`...)
	g.line = append(appendStr(b, "sessionId", g.sessionID), '}')
	g.meta(g.line)
}

// claudeTurn writes one exchange: rewind, compaction, title, a
// file-history-snapshot and the prompt, then responses with their tool
// results, ending with a final answer.
func (g *gen) claudeTurn() {
	r := g.r
	g.turns++
	g.zh = r.Chance(g.o.ChineseShare)
	if g.turns > 2 && g.tr.len() > 6 && r.Intn(100) < 6 {
		g.branch() // a rewind: the next prompt is a new child of an earlier assistant line
	}
	if !g.p.subagent && g.sinceCmp >= g.cmpEvery && g.tr.len() > 10 && !g.done {
		g.claudeCompaction()
	}
	if !g.p.subagent && ((g.turns == 2 && r.Intn(10) < 6) || (g.turns > 2 && r.Intn(100) == 0)) {
		g.claudeTitle()
	}
	if g.done {
		return
	}
	g.claudeUser()
	for r.Intn(100) < 80 && !g.done {
		n := 1
		if k := r.Intn(100); k >= 98 {
			n = 3
		} else if k >= 92 {
			n = 2
		}
		g.claudeAssistant("tool_use", n)
		for _, c := range g.calls {
			if g.done {
				return
			}
			g.claudeResult(c)
		}
	}
	if !g.done {
		g.claudeAssistant("end_turn", 0)
	}
	if !g.p.subagent && r.Intn(10) == 0 {
		b := append(g.line[:0], `{"type":"last-prompt"`...)
		b = appendStr(b, "lastPrompt", enShort[r.Intn(len(enShort))])
		g.line = append(appendStr(b, "sessionId", g.sessionID), '}')
		g.meta(g.line)
	}
}

// claudeUser writes the prompt: a file-history-snapshot line naming it,
// then the user line (a string, or blocks when it carries an image).
func (g *gen) claudeUser() {
	r := g.r
	gap := userGap.Draw(r)
	id := g.newID()
	if !g.p.subagent {
		b := append(g.line[:0], `{"type":"file-history-snapshot","messageId":"`...)
		b = append(g.appendUUID(b, id), `","snapshot":{"messageId":"`...)
		b = append(g.appendUUID(b, id), `","trackedFileBackups":{},"timestamp":"`...)
		b = append(appendISO(b, g.clock+int64(gap)), `"},"isSnapshotUpdate":false}`...)
		g.line = b
		g.meta(g.line)
	}
	g.preset = id
	g.cbegin("user", g.leaf, gap)
	g.line = append(g.line, `,"message":{"role":"user","content":`...)
	g.txt = g.txt[:0]
	if n := userText.Draw(r); n < 24 {
		short := enShort
		if g.zh {
			short = zhShort
		}
		g.txt = append(g.txt, short[r.Intn(len(short))]...)
	} else {
		g.prose(n)
	}
	if g.image > 0 && g.w.n+int64(g.image) <= g.target*85/100 {
		g.line = append(g.line, `[{"type":"text"`...)
		g.line = append(appendStr(g.line, "text", g.spliced(0)), '}')
		g.line = append(g.line, `,{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`...)
		g.streamImage(g.image)
		g.image = 0
		g.line = append(g.line, `"}}]`...)
	} else {
		g.line = appendString(g.line, g.spliced(0))
	}
	g.line = append(g.line, '}')
	g.commit(kindUser)
}

// claudeAssistant writes one API response as Claude Code does: one line
// per content block (thinking, text, n tool_use), chained, all with the
// same message id, requestId and usage. stop is the stop_reason.
func (g *gen) claudeAssistant(stop string, n int) {
	r := g.r
	model := claudeModels[0]
	if g.model == 1 {
		model = claudeModels[1]
	}
	msgID := string(r.appendBase62([]byte("msg_01"), 22))
	reqID := string(r.appendBase62([]byte("req_011C"), 17))
	in, out := int64(r.Range(1, 40)), int64(r.Range(10, 900))
	cacheRead, cacheWrite := min(g.sinceCmp/4, 200_000), int64(r.Intn(4000))
	first := true
	block := func(kind uint8, body func()) {
		gap := r.Range(20, 900)
		if first {
			gap = entryGap.Draw(r)
		}
		first = false
		g.cbegin("assistant", g.leaf, gap)
		g.line = appendStr(append(g.line, `,"message":{`...), "model", model)
		g.line = appendStr(g.line, "id", msgID)
		g.line = append(g.line, `,"type":"message","role":"assistant","content":[`...)
		body()
		g.line = append(g.line, ']')
		if stop == "end_turn" || n > 0 {
			g.line = appendStr(g.line, "stop_reason", stop)
		} else {
			g.line = append(g.line, `,"stop_reason":null`...)
		}
		g.line = append(g.line, `,"stop_sequence":null,"usage":{"input_tokens":`...)
		g.line = strconv.AppendInt(g.line, in, 10)
		g.line = appendInt(g.line, "cache_creation_input_tokens", cacheWrite)
		g.line = appendInt(g.line, "cache_read_input_tokens", cacheRead)
		g.line = appendInt(g.line, "output_tokens", out)
		g.line = append(g.line, `,"service_tier":"standard"}}`...)
		g.line = appendStr(g.line, "requestId", reqID)
		g.commit(kind)
	}
	g.txt = g.txt[:0]
	if g.thinking > 0 && r.Intn(10) < 6 && !g.done {
		block(kindAssistant, func() {
			g.line = append(g.line, `{"type":"thinking"`...)
			g.prose(g.fit(thinkText.Draw(r)))
			g.line = appendStr(g.line, "thinking", g.spliced(0))
			sig := g.scratch[:0]
			for range r.Range(200, 500) {
				sig = append(sig, byte(r.Uint64()))
			}
			g.line = append(g.line, `,"signature":"`...)
			g.line, g.scratch = appendBase64(g.line, sig), sig
			g.line = append(g.line, `"}`...)
		})
	}
	if (n == 0 || r.Intn(100) < 45) && !g.done {
		block(kindAssistant, func() {
			g.line = append(g.line, `{"type":"text"`...)
			g.txt = g.txt[:0]
			g.prose(g.fit(asstText.Draw(r)))
			g.line = append(appendStr(g.line, "text", g.spliced(0)), '}')
		})
	}
	g.calls = g.calls[:0]
	for i := range n {
		if g.done {
			break
		}
		c := g.drawCall("toolu_01", 22)
		if i == 0 && len(g.agents) > 0 && g.turns >= 2 {
			c.name, c.agent, g.agents = "task", g.agents[0], g.agents[1:]
		}
		block(kindAssistant, func() {
			g.line = appendStr(append(g.line, `{"type":"tool_use"`...), "id", c.id)
			if c.agent != nil {
				g.line = append(g.line, `,"name":"Task","input":{"description":"Explore the code","prompt":`...)
				g.txt = g.t.prose(g.txt[:0], r.Range(80, 400))
				g.line = appendString(g.line, g.spliced(0))
				g.line = append(g.line, `,"subagent_type":"general-purpose"}}`...)
				return
			}
			g.line = appendStr(g.line, "name", claudeKeys.tool(c.name))
			g.line = append(g.toolInput(append(g.line, `,"input":`...), c, &claudeKeys), '}')
		})
		c.at = g.leaf
		g.calls = append(g.calls, c)
	}
}

// claudeResult writes the user line with the tool_result of c, parented
// to c's own tool_use line (so the results of parallel calls but the last
// are leaves, FORMATS.md §1.7), with Claude's structured toolUseResult.
func (g *gen) claudeResult(c call) {
	r := g.r
	g.cbegin("user", c.at, resultGap.Draw(r))
	isErr := r.Intn(100) < 5 && c.agent == nil
	if c.agent != nil {
		g.txt = g.t.prose(g.txt[:0], g.fit(asstText.Draw(r)))
	} else {
		g.toolOutput(c, isErr)
	}
	txt := g.spliced(0)
	b := append(g.line, `,"message":{"role":"user","content":[{"tool_use_id":`...)
	b = appendString(b, c.id)
	b = append(b, `,"type":"tool_result"`...)
	b = appendStr(b, "content", txt)
	b = append(appendBool(b, "is_error", isErr), "}]}"...)
	b = appendKey(b, "toolUseResult")
	switch {
	case isErr:
		b = appendString(b, "Error: "+string(txt))
	case c.agent != nil:
		b = appendStr(append(b, `{"status":"completed"`...), "agentId", c.agent.agent)
		b = append(appendStr(append(b, `,"content":[{"type":"text"`...), "text", txt), "}]"...)
		b = appendInt(b, "totalDurationMs", int64(r.Range(5000, 300000)))
		b = append(appendInt(b, "totalToolUseCount", int64(r.Range(1, 30))), '}')
	case c.name == "bash":
		b = appendStr(append(b, '{'), "stdout", txt)
		b = append(b, `,"stderr":"","interrupted":false,"isImage":false}`...)
	case c.name == "read":
		lines := int64(1)
		for _, ch := range txt {
			if ch == '\n' {
				lines++
			}
		}
		b = append(b, `{"type":"text","file":{`...)
		b = appendStr(b, "filePath", c.path)
		b = appendStr(b, "content", txt)
		b = appendInt(b, "numLines", lines)
		b = appendInt(b, "startLine", 1)
		b = append(appendInt(b, "totalLines", lines), "}}"...)
	default:
		b = appendStr(append(b, '{'), "filePath", c.path)
		b = append(b, `,"userModified":false}`...)
	}
	b = append(appendKey(b, "sourceToolAssistantUUID"), '"')
	b = append(g.appendUUID(b, g.tr.ids[c.at]), '"')
	g.line = b
	g.commit(kindToolResult)
}

// claudeCompaction writes /compact's pair: a compact_boundary system
// line with no parent (a new root) whose logicalParentUuid is the leaf,
// then the isCompactSummary user line under it.
func (g *gen) claudeCompaction() {
	r := g.r
	logical := g.tr.ids[g.leaf]
	tokens := g.sinceCmp/4 + int64(r.Intn(4000))
	g.cbegin("system", -1, entryGap.Draw(r))
	g.line = append(g.line, `,"subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","logicalParentUuid":"`...)
	g.line = append(g.appendUUID(g.line, logical), '"')
	trigger := "auto"
	if r.Intn(3) == 0 {
		trigger = "manual"
	}
	g.line = appendStr(append(g.line, `,"compactMetadata":{`...), "trigger", trigger)
	g.line = append(appendInt(g.line, "preTokens", tokens), '}')
	g.commit(kindOther)
	if g.done {
		return
	}
	g.cbegin("user", g.leaf, r.Range(50, 2000))
	g.txt = append(g.txt[:0], "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\n"...)
	g.prose(r.Range(400, 3000))
	g.line = append(g.line, `,"message":{"role":"user","content":`...)
	g.line = append(appendString(g.line, g.spliced(0)), '}')
	g.line = append(g.line, `,"isVisibleInTranscriptOnly":true,"isCompactSummary":true`...)
	g.commit(kindUser)
	g.sinceCmp, g.cmpEvery = 0, int64(r.Range(150<<10, 600<<10))
}

// claudeTitle writes a custom-title line: the session's name (last wins).
func (g *gen) claudeTitle() {
	r := g.r
	title := enTitles[r.Intn(len(enTitles))]
	if g.zh {
		title = zhTitles[r.Intn(len(zhTitles))]
	}
	b := append(g.line[:0], `{"type":"custom-title"`...)
	b = appendStr(b, "customTitle", title)
	g.line = append(appendStr(b, "sessionId", g.sessionID), '}')
	if !g.done {
		g.out.Name = title
		g.names = append(g.names, named{at: g.w.n, name: title})
	}
	g.meta(g.line)
}

// smallEntry is the small entry that carries a damage planned but not yet
// made when a claude, codex or messages session ends (finish).
func (g *gen) smallEntry() {
	r := g.r
	switch g.d {
	case "claude":
		g.cbegin("system", g.leaf, entryGap.Draw(r))
		g.line = appendInt(append(g.line, `,"subtype":"turn_duration"`...), "durationMs", int64(r.Range(1000, 90000)))
		g.line = append(g.line, `,"isMeta":false`...)
	case "codex":
		g.xbegin("event_msg", entryGap.Draw(r))
		g.line = append(g.line, `{"type":"token_count","info":null,"rate_limits":null}`...)
	default:
		g.mbegin("user")
		g.line = append(g.line, `,"content":"continue"`...)
	}
	g.commit(kindOther)
}
