package corpusgen

import "strconv"

// Codex CLI rollouts (SPEC §3.5, FORMATS.md §2.9): a session_meta header,
// then one {"timestamp","type","payload"} item per line. Entries have no
// ids (L<line>, one chain). Typed text is written twice, as a
// response_item and as its event_msg copy; the copies' marker words are
// not counted in File.Markers (grove reports one hit for the pair).

const codexVersion = "0.104.0"

var codexModels = []string{"gpt-5.1-codex", "gpt-5.1-codex-max"}

// codexHeader writes the session_meta line, base instructions included
// (real ones are a few KB of the agent's own prompt).
func (g *gen) codexHeader(forkedFrom string) {
	r := g.r
	b := append(g.line[:0], `{"timestamp":"`...)
	b = append(appendISO(b, g.p.start), `","type":"session_meta","payload":{`...)
	b = appendStr(b, "id", g.p.id)
	b = append(appendKey(b, "timestamp"), '"')
	b = append(appendISO(b, g.p.start-int64(r.Range(100, 900))), '"')
	b = appendStr(b, "cwd", g.out.Workspace)
	if forkedFrom != "" {
		b = appendStr(b, "forked_from_id", forkedFrom)
	}
	b = append(b, `,"originator":"codex_cli_rs","cli_version":"`+codexVersion+`","source":"cli","model_provider":"openai"`...)
	b = append(b, `,"base_instructions":{"text":`...)
	g.txt = append(g.txt[:0], "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals.\n\n"...)
	g.txt = g.t.doc(g.txt, r.Range(1500, 4000))
	b = append(appendString(b, g.txt), '}')
	b = append(b, `,"git":{"commit_hash":"`...)
	for range 40 {
		b = append(b, hexDigits[r.Intn(16)])
	}
	b = append(b, `","branch":"main"}}}`...)
	g.w.write(append(b, '\n'))
	g.lines++
	g.line = b[:0]
}

// xbegin starts a rollout line of type typ dt ms after the last, up to
// the opening of its payload, which the caller writes (commit closes the
// envelope). The parent is the previous entry.
func (g *gen) xbegin(typ string, dt int) {
	g.clock += int64(dt)
	g.parent, g.carried, g.streamd = g.leaf, 0, 0
	g.mk.tick()
	b := append(g.line[:0], `{"timestamp":"`...)
	b = append(appendISO(b, g.clock), `","type":"`...)
	b = append(b, typ...)
	g.line = append(b, `","payload":`...)
}

// codexMessage writes a response_item message of role with the text in
// g.txt[start:] (markers spliced), as content blocks of kind (input_text
// or output_text), then, when copy is set, its event_msg copy.
func (g *gen) codexMessage(role, kind, copyType string, k uint8, dt int) {
	g.xbegin("response_item", dt)
	g.line = appendStr(append(g.line, `{"type":"message"`...), "role", role)
	g.line = append(g.line, `,"content":[{"type":"`...)
	g.line = append(g.line, kind...)
	g.line = append(g.line, '"')
	txt := g.spliced(0)
	g.line = append(appendStr(g.line, "text", txt), '}')
	if role == "user" && g.image > 0 && g.w.n+int64(g.image) <= g.target*85/100 {
		g.line = append(g.line, `,{"type":"input_image","image_url":"data:image/png;base64,`...)
		g.streamImage(g.image)
		g.image = 0
		g.line = append(g.line, `"}`...)
	}
	g.line = append(g.line, "]}"...)
	g.commit(k)
	if copyType == "" || g.done {
		return
	}
	g.xbegin("event_msg", g.r.Range(0, 3))
	g.line = append(append(g.line, `{"type":"`...), copyType...)
	g.line = append(appendStr(append(g.line, '"'), "message", g.txt), '}') // g.txt still holds the spliced text
	if copyType == "user_message" {
		g.line = append(g.line[:len(g.line)-1], `,"images":[]}`...)
	}
	g.commit(kindOther)
}

// codexTurn writes one turn: compaction when due, the environment
// context first, the prompt and its copy, turn_context, then reasoning,
// tool calls and their outputs, the answer and its copy, a token count.
func (g *gen) codexTurn() {
	r := g.r
	g.turns++
	g.zh = r.Chance(g.o.ChineseShare)
	if g.sinceCmp >= g.cmpEvery && g.tr.len() > 10 {
		g.codexCompaction()
	}
	if g.done {
		return
	}
	if g.turns == 1 {
		g.txt = append(g.txt[:0], "<environment_context>\n  <cwd>"...)
		g.txt = append(g.txt, g.out.Workspace...)
		g.txt = append(g.txt, "</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"...)
		g.codexMessage("user", "input_text", "", kindOther, 0)
		if g.done {
			return
		}
	}
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
	g.codexMessage("user", "input_text", "user_message", kindUser, userGap.Draw(r))
	if g.done {
		return
	}
	g.xbegin("turn_context", r.Range(1, 40))
	g.line = append(g.line, `{"turn_id":"`...)
	g.line = append(r.appendBase62(g.line, 12), '"')
	g.line = appendStr(g.line, "cwd", g.out.Workspace)
	g.line = append(g.line, `,"approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":false}`...)
	g.line = appendStr(g.line, "model", codexModels[g.model%2])
	g.line = append(g.line, `,"effort":"medium","summary":"auto"}`...)
	g.commit(kindOther)
	for r.Intn(100) < 80 && !g.done {
		if g.thinking > 0 && r.Intn(10) < 6 {
			g.codexReasoning()
		}
		n := 1
		if k := r.Intn(100); k >= 96 {
			n = 2
		}
		g.calls = g.calls[:0]
		for range n {
			if g.done {
				return
			}
			g.codexCall()
		}
		for _, c := range g.calls {
			if g.done {
				return
			}
			g.codexOutput(c)
		}
	}
	if g.done {
		return
	}
	g.txt = g.txt[:0]
	g.prose(g.fit(asstText.Draw(r)))
	g.codexMessage("assistant", "output_text", "agent_message", kindAssistant, entryGap.Draw(r))
	if g.done || r.Intn(2) == 0 {
		return
	}
	g.xbegin("event_msg", r.Range(1, 30))
	in, out := int64(r.Range(2000, 200000)), int64(r.Range(50, 5000))
	g.line = append(g.line, `{"type":"token_count","info":{"total_token_usage":{"input_tokens":`...)
	g.line = strconv.AppendInt(g.line, in, 10)
	g.line = appendInt(g.line, "cached_input_tokens", in*3/4)
	g.line = appendInt(g.line, "output_tokens", out)
	g.line = appendInt(g.line, "total_tokens", in+out)
	g.line = append(g.line, `},"model_context_window":272000},"rate_limits":null}`...)
	g.commit(kindOther)
}

// codexReasoning writes a reasoning item (a summary and encrypted
// content) and its agent_reasoning copy.
func (g *gen) codexReasoning() {
	r := g.r
	g.xbegin("response_item", entryGap.Draw(r))
	g.txt = append(g.txt[:0], "**"...)
	g.txt = append(g.txt, enTitles[r.Intn(len(enTitles))]...)
	g.txt = append(g.txt, "**\n\n"...)
	g.prose(g.fit(thinkText.Draw(r) / 3))
	g.line = append(g.line, `{"type":"reasoning","summary":[{"type":"summary_text"`...)
	txt := g.spliced(0)
	g.line = append(appendStr(g.line, "text", txt), `}],"content":null,"encrypted_content":"gAAAAA`...)
	sig := g.scratch[:0]
	for range r.Range(600, 2400) {
		sig = append(sig, byte(r.Uint64()))
	}
	g.line, g.scratch = appendBase64(g.line, sig), sig
	g.line = append(g.line, `"}`...)
	g.commit(kindOther)
	if g.done {
		return
	}
	g.xbegin("event_msg", r.Range(0, 3))
	g.line = append(appendStr(append(g.line, `{"type":"agent_reasoning"`...), "text", g.txt), '}')
	g.commit(kindOther)
}

// codexCall writes a tool call: shell commands as function_call with
// arguments as a JSON string, edits and writes as apply_patch
// custom_tool_call.
func (g *gen) codexCall() {
	r := g.r
	c := g.drawCall("call_", 24)
	g.xbegin("response_item", entryGap.Draw(r))
	switch c.name {
	case "bash", "read":
		cmd := c.cmd
		if c.name == "read" {
			cmd = "sed -n '1," + strconv.Itoa(r.Range(80, 400)) + "p' " + c.path
		}
		args := append([]byte(nil), `{"command":["bash","-lc",`...)
		args = appendString(args, cmd)
		args = append(appendStr(append(args, ']'), "workdir", g.out.Workspace), '}')
		g.line = append(g.line, `{"type":"function_call","name":"shell"`...)
		g.line = appendStr(g.line, "arguments", args)
	default:
		g.scratch = append(g.scratch[:0], "*** Begin Patch\n*** "...)
		if c.name == "write" {
			g.scratch = append(g.scratch, "Add File: "...)
		} else {
			g.scratch = append(g.scratch, "Update File: "...)
		}
		g.scratch = append(append(g.scratch, c.path...), "\n@@\n"...)
		g.scratch = g.t.code(g.scratch, c.a+c.b)
		g.scratch = append(g.scratch, "\n*** End Patch"...)
		g.line = append(g.line, `{"type":"custom_tool_call","status":"completed","name":"apply_patch"`...)
		g.line = appendStr(g.line, "input", g.scratch)
	}
	g.line = append(appendStr(g.line, "call_id", c.id), '}')
	g.commit(kindOther)
	g.calls = append(g.calls, c)
}

// codexOutput writes the output item answering c.
func (g *gen) codexOutput(c call) {
	r := g.r
	g.xbegin("response_item", resultGap.Draw(r))
	isErr := r.Intn(100) < 5
	switch c.name {
	case "bash", "read":
		g.toolOutput(c, isErr)
		g.line = appendStr(append(g.line, `{"type":"function_call_output"`...), "call_id", c.id)
	default:
		g.txt = append(g.txt[:0], "Success. Updated the following files:\nM "...)
		if isErr {
			g.txt = g.t.expand(g.txt[:0], errorLines[r.Intn(len(errorLines))])
		} else {
			g.txt = append(g.txt, c.path...)
		}
		g.line = appendStr(append(g.line, `{"type":"custom_tool_call_output"`...), "call_id", c.id)
	}
	g.line = append(appendStr(g.line, "output", g.spliced(0)), '}')
	g.commit(kindToolResult)
}

// codexCompaction writes a compacted item (the summary and a
// replacement_history of the recent user messages, shortened) and the
// context_compacted event.
func (g *gen) codexCompaction() {
	r := g.r
	g.xbegin("compacted", entryGap.Draw(r))
	g.txt = g.txt[:0]
	g.prose(r.Range(400, 2500))
	g.line = append(g.line, '{')
	g.line = appendStr(g.line, "message", g.spliced(0))
	g.line = append(g.line, `,"replacement_history":[`...)
	for i := range r.Range(2, 6) {
		if i > 0 {
			g.line = append(g.line, ',')
		}
		g.line = append(g.line, `{"type":"message","role":"user","content":[{"type":"input_text"`...)
		g.scratch = g.t.prose(g.scratch[:0], r.Range(20, 300))
		g.line = append(appendStr(g.line, "text", g.scratch), "}]}"...)
	}
	g.line = append(g.line, "]}"...)
	g.commit(kindOther)
	if !g.done {
		g.xbegin("event_msg", r.Range(1, 20))
		g.line = append(g.line, `{"type":"context_compacted"}`...)
		g.commit(kindOther)
	}
	g.sinceCmp, g.cmpEvery = 0, int64(r.Range(150<<10, 600<<10))
}
