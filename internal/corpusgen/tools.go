package corpusgen

import (
	"strconv"
	"strings"
)

// toolCall appends one toolCall block of pi's four built-in tools, with
// arguments shaped as pi's tools take them, and remembers it in g.calls.
func (g *gen) toolCall(m model) {
	r := g.r
	w := r.Intn(1000)
	name := tools[len(tools)-1].name
	for _, t := range tools {
		if w < t.weight {
			name = t.name
			break
		}
		w -= t.weight
	}
	id := string(r.appendBase62([]byte(m.callPrefix), m.callLen))
	c := call{id: id, name: name}
	b := append(g.line, `{"type":"toolCall"`...)
	b = appendStr(b, "id", id)
	b = appendStr(b, "name", name)
	b = append(b, `,"arguments":{`...)
	t := g.t
	switch name {
	case "bash":
		g.scratch = t.expand(g.scratch[:0], bashCommands[r.Intn(len(bashCommands))])
		b = appendStr(b, "command", g.scratch)
		if r.Intn(5) == 0 {
			b = appendInt(b, "timeout", int64(60*r.Range(1, 5)))
		}
	case "read":
		c.path = t.ws.files[r.Intn(len(t.ws.files))]
		b = appendStr(b, "path", c.path)
		if r.Intn(6) == 0 {
			b = appendInt(b, "offset", int64(r.Range(1, 800)))
			b = appendInt(b, "limit", int64(r.Range(20, 400)))
		}
	case "edit":
		c.path = t.ws.files[r.Intn(len(t.ws.files))]
		c.a, c.b = g.fit(editText.Draw(r)), g.fit(editText.Draw(r))
		b = appendStr(b, "path", c.path)
		g.scratch = t.code(g.scratch[:0], c.a)
		b = appendStr(b, "oldText", g.scratch)
		g.scratch = t.code(g.scratch[:0], c.b)
		b = appendStr(b, "newText", g.scratch)
	case "write":
		c.path = t.ws.files[r.Intn(len(t.ws.files))]
		c.a = g.fit(writeText.Draw(r))
		b = appendStr(b, "path", c.path)
		g.scratch = t.code(g.scratch[:0], c.a)
		b = appendStr(b, "content", g.scratch)
	}
	g.line = append(b, "}}"...)
	g.calls = append(g.calls, c)
}

// result writes the toolResult message answering c: what pi's tool prints,
// at the measured sizes; about 5 % are errors.
func (g *gen) result(c call) {
	r := g.r
	g.begin("message", g.leaf, resultGap.Draw(r))
	b := append(g.line, `,"message":{"role":"toolResult"`...)
	b = appendStr(b, "toolCallId", c.id)
	b = appendStr(b, "toolName", c.name)
	b = append(b, `,"content":[{"type":"text"`...)
	g.line = b
	isErr := r.Intn(100) < 5
	g.toolOutput(c, isErr)
	g.line = appendStr(g.line, "text", g.spliced(0))
	g.line = append(g.line, "}]"...)
	if c.name == "edit" && !isErr {
		g.line = append(g.line, `,"details":{"diff":`...)
		g.scratch = g.diff(g.scratch[:0], c.a+c.b)
		g.line = append(appendString(g.line, g.scratch), '}')
	}
	g.line = appendBool(g.line, "isError", isErr)
	g.line = appendInt(g.line, "timestamp", g.clock)
	g.line = append(g.line, '}')
	g.commit(kindToolResult)
}

// diff appends about n bytes of the numbered diff pi's edit tool reports.
func (g *gen) diff(b []byte, n int) []byte {
	r := g.r
	end := len(b) + n
	for ln := r.Range(1, 400); len(b) < end; ln++ {
		switch r.Intn(4) {
		case 0:
			b = append(b, '-')
		case 1:
			b = append(b, '+')
		default:
			b = append(b, ' ')
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(ln), 10)
		b = append(b, ' ')
		b = g.t.code(b, 1)
	}
	return b
}

// bashExecution writes what pi records when the user runs a command with
// "!": role bashExecution (pi only; the plain dialect has no such role).
func (g *gen) bashExecution() {
	r := g.r
	g.begin("message", g.leaf, userGap.Draw(r))
	b := append(g.line, `,"message":{"role":"bashExecution"`...)
	g.scratch = g.t.expand(g.scratch[:0], bashCommands[r.Intn(len(bashCommands))])
	b = appendStr(b, "command", g.scratch)
	g.line = b
	g.txt = g.t.bashOutput(g.txt[:0], g.fit(bashOut.Draw(r)))
	g.line = appendStr(g.line, "output", g.spliced(0))
	cancelled, truncated := r.Intn(30) == 0, r.Intn(20) == 0
	if !cancelled { // pi leaves exitCode undefined for a cancelled command
		g.line = appendInt(g.line, "exitCode", int64(r.Intn(4)/3))
	}
	g.line = appendBool(g.line, "cancelled", cancelled)
	g.line = appendBool(g.line, "truncated", truncated)
	if truncated {
		g.line = appendStr(g.line, "fullOutputPath", "/tmp/pi-bash-"+strconv.FormatUint(r.Uint64()>>32, 16)+".log")
	}
	g.line = appendInt(g.line, "timestamp", g.clock)
	g.line = append(g.line, '}')
	g.commit(kindUser)
}

// toolOutput puts in g.txt what the tool of c prints (an error message when
// isErr), at the measured sizes: pi's texts, which every dialect shares.
func (g *gen) toolOutput(c call, isErr bool) {
	r := g.r
	t := g.t
	g.txt = g.txt[:0]
	switch {
	case isErr && c.name == "edit":
		g.txt = append(g.txt, "Could not find the exact text in "...)
		g.txt = append(g.txt, c.path...)
		g.txt = append(g.txt, ". The old text must match exactly including all whitespace and newlines."...)
	case isErr:
		g.txt = t.expand(g.txt, errorLines[r.Intn(len(errorLines))])
	case c.name == "bash":
		if n := bashOut.Draw(r); n < 4 {
			g.txt = append(g.txt, "(no output)"...)
		} else {
			g.txt = t.bashOutput(g.txt, g.fit(n))
		}
	case c.name == "read":
		if strings.HasSuffix(c.path, ".md") {
			g.txt = t.doc(g.txt, g.fit(readOut.Draw(r)))
		} else {
			g.txt = t.code(g.txt, g.fit(readOut.Draw(r)))
		}
	case c.name == "edit":
		g.txt = append(g.txt, "Successfully replaced text in "...)
		g.txt = append(g.txt, c.path...)
		g.txt = append(g.txt, ". Changed "...)
		g.txt = strconv.AppendInt(g.txt, int64(c.a), 10)
		g.txt = append(g.txt, " characters to "...)
		g.txt = strconv.AppendInt(g.txt, int64(c.b), 10)
		g.txt = append(g.txt, " characters."...)
	default:
		g.txt = append(g.txt, "Successfully wrote "...)
		g.txt = strconv.AppendInt(g.txt, int64(c.a), 10)
		g.txt = append(g.txt, " bytes to "...)
		g.txt = append(g.txt, c.path...)
	}
}

// drawCall draws one tool call of the four tools as toolCall does (same
// weights, paths and sizes) for the dialects that write their own call
// shapes: the id is prefix and n random base-62 characters.
func (g *gen) drawCall(prefix string, n int) call {
	r := g.r
	w := r.Intn(1000)
	name := tools[len(tools)-1].name
	for _, t := range tools {
		if w < t.weight {
			name = t.name
			break
		}
		w -= t.weight
	}
	c := call{id: string(r.appendBase62([]byte(prefix), n)), name: name}
	switch name {
	case "bash":
		c.cmd = string(g.t.expand(nil, bashCommands[r.Intn(len(bashCommands))]))
	case "read":
		c.path = g.t.ws.files[r.Intn(len(g.t.ws.files))]
	case "edit":
		c.path = g.t.ws.files[r.Intn(len(g.t.ws.files))]
		c.a, c.b = g.fit(editText.Draw(r)), g.fit(editText.Draw(r))
	case "write":
		c.path = g.t.ws.files[r.Intn(len(g.t.ws.files))]
		c.a = g.fit(writeText.Draw(r))
	}
	return c
}

// toolInput appends the input object of c with the dialect's key names:
// k lists the keys of the command, the path, the old and new text of an
// edit and a written file's content.
func (g *gen) toolInput(b []byte, c call, k *inputKeys) []byte {
	b = append(b, '{')
	switch c.name {
	case "bash":
		b = appendStr(b, k.command, c.cmd)
	case "read":
		b = appendStr(b, k.path, c.path)
	case "edit":
		b = appendStr(b, k.path, c.path)
		g.scratch = g.t.code(g.scratch[:0], c.a)
		b = appendStr(b, k.old, g.scratch)
		g.scratch = g.t.code(g.scratch[:0], c.b)
		b = appendStr(b, k.new, g.scratch)
	case "write":
		b = appendStr(b, k.path, c.path)
		g.scratch = g.t.code(g.scratch[:0], c.a)
		b = appendStr(b, k.content, g.scratch)
	}
	return append(b, '}')
}

// inputKeys are a dialect's names of the four tools and of their inputs.
type inputKeys struct {
	bash, read, edit, write          string
	command, path, old, new, content string
}

func (k *inputKeys) tool(name string) string {
	switch name {
	case "bash":
		return k.bash
	case "read":
		return k.read
	case "edit":
		return k.edit
	}
	return k.write
}
