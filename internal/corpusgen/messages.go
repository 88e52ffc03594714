package corpusgen

// The messages log of the resume chapter (SPEC §3.6, FORMATS.md §3): one
// Anthropic chat message per line, no header, ids or times; entry ids are
// L<line> in one chain. Tools are the chapter's bash, read_file, edit_file
// and write_file; all results of one response share one user line.

var messagesKeys = inputKeys{bash: "bash", read: "read_file", edit: "edit_file", write: "write_file",
	command: "command", path: "path", old: "old_text", new: "new_text", content: "content"}

// mbegin starts a message line of role.
func (g *gen) mbegin(role string) {
	g.parent, g.carried, g.streamd = g.leaf, 0, 0
	g.mk.tick()
	g.line = appendStr(append(g.line[:0], '{'), "role", role)
}

// messagesTurn writes a prompt, then responses with text and tool_use
// blocks each followed by one user line of tool_result blocks, then the
// final answer.
func (g *gen) messagesTurn() {
	r := g.r
	g.turns++
	g.zh = r.Chance(g.o.ChineseShare)
	g.clock += int64(userGap.Draw(r)) // no times in the file; the clock only orders forks and names
	g.mbegin("user")
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
		g.line = append(g.line, `,"content":[{"type":"text"`...)
		g.line = append(appendStr(g.line, "text", g.spliced(0)), '}')
		g.line = append(g.line, `,{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`...)
		g.streamImage(g.image)
		g.image = 0
		g.line = append(g.line, `"}}]`...)
	} else {
		g.line = appendStr(g.line, "content", g.spliced(0))
	}
	g.commit(kindUser)
	for r.Intn(100) < 80 && !g.done {
		n := 1
		if k := r.Intn(100); k >= 98 {
			n = 3
		} else if k >= 92 {
			n = 2
		}
		g.messagesAssistant(n)
		if g.done {
			return
		}
		g.mbegin("user")
		g.line = append(g.line, `,"content":[`...)
		g.txt = g.txt[:0]
		for i, c := range g.calls {
			if i > 0 {
				g.line = append(g.line, ',')
			}
			isErr := r.Intn(100) < 5
			g.toolOutput(c, isErr)
			g.line = appendStr(append(g.line, `{"type":"tool_result"`...), "tool_use_id", c.id)
			g.line = appendStr(g.line, "content", g.spliced(0))
			if isErr {
				g.line = append(g.line, `,"is_error":true`...)
			}
			g.line = append(g.line, '}')
		}
		g.line = append(g.line, ']')
		g.commit(kindToolResult)
	}
	if !g.done {
		g.messagesAssistant(0)
	}
}

// messagesAssistant writes one assistant line: text, then n tool_use
// blocks that g.calls lists.
func (g *gen) messagesAssistant(n int) {
	r := g.r
	g.mbegin("assistant")
	g.line = append(g.line, `,"content":[`...)
	g.txt = g.txt[:0]
	blocks := 0
	if n == 0 || r.Intn(100) < 45 {
		g.prose(g.fit(asstText.Draw(r)))
		g.line = append(appendStr(append(g.line, `{"type":"text"`...), "text", g.spliced(0)), '}')
		blocks++
	}
	g.calls = g.calls[:0]
	for range n {
		if blocks > 0 {
			g.line = append(g.line, ',')
		}
		blocks++
		c := g.drawCall("toolu_01", 22)
		g.line = appendStr(append(g.line, `{"type":"tool_use"`...), "id", c.id)
		g.line = appendStr(g.line, "name", messagesKeys.tool(c.name))
		g.line = append(g.toolInput(append(g.line, `,"input":`...), c, &messagesKeys), '}')
		g.calls = append(g.calls, c)
	}
	g.line = append(g.line, ']')
	g.commit(kindAssistant)
}
