package corpusgen

import (
	"math"
	"strconv"
)

// Calibrated sizes (bytes of raw text) and gaps (ms); see doc.go for the
// measurements they come from.
var (
	userText  = dist{p50: 74, p90: 204, min: 2, max: 4000}
	asstText  = dist{p50: 95, p90: 530, min: 4, max: 6000}
	thinkText = dist{p50: 400, p90: 1800, min: 20, max: 12000}
	bashOut   = dist{p50: 85, p90: 1039, min: 1, max: 40000}
	readOut   = dist{p50: 1557, p90: 6568, min: 40, max: 60000}
	editText  = dist{p50: 180, p90: 1100, min: 10, max: 9000}
	writeText = dist{p50: 1200, p90: 4500, min: 60, max: 30000}
	entryGap  = dist{p50: 3400, p90: 11000, min: 40, max: 600_000}
	resultGap = dist{p50: 600, p90: 4000, min: 20, max: 120_000}
	userGap   = dist{p50: 25_000, p90: 180_000, min: 2000, max: 3_600_000}
)

// model is an assistant model as pi records it; prices are USD per million
// tokens, used for usage.cost.
type model struct {
	api, provider, id string
	in, out           float64
	callPrefix        string // tool call ids: prefix and random base-62 length
	callLen           int
}

var models = []model{
	{"anthropic-messages", "anthropic", "claude-sonnet-4-5", 3, 15, "toolu_01", 22},
	{"anthropic-messages", "anthropic", "claude-opus-4-5", 5, 25, "toolu_01", 22},
	{"openai-responses", "openai", "gpt-5.1-codex", 1.25, 10, "call_", 24},
	{"google-generative-ai", "google", "gemini-2.5-pro", 1.25, 10, "call_", 16},
}

// pickModel draws a model: Sonnet 80 %, Opus, GPT and Gemini the rest.
func pickModel(r *rng) int {
	switch k := r.Intn(100); {
	case k < 80:
		return 0
	case k < 88:
		return 1
	case k < 96:
		return 2
	}
	return 3
}

var thinkingLevels = []string{"off", "minimal", "low", "medium", "high"}

// tools and their weights per 1000 calls, as measured: bash 49 %, edit
// 37 %, read 13 %, write 1 %.
var tools = []struct {
	name   string
	weight int
}{{"bash", 491}, {"edit", 373}, {"read", 128}, {"write", 8}}

// call is a tool call waiting for its result.
type call struct {
	id, name, path string
	a, b           int // edit: old and new text sizes; write: content size
	// The other dialects (drawCall): the bash command, the entry of the
	// tool call (the Claude tool_use line), a Claude sub-agent started.
	cmd   string
	at    int32
	agent *plan
}

// run writes entries until the session reaches its target size.
func (g *gen) run(stop func() bool) {
	for !g.done {
		if g.turns%16 == 0 && stop() {
			return
		}
		g.turn()
	}
	g.finish()
}

// finish makes the planned damage when the session ended without it (it
// reached its size before the byte offset chosen for the damage, or its
// last entry held a streamed image, which is never torn): one more small
// entry carries it.
func (g *gen) finish() {
	if g.damaged || g.p.damage == DamageNone {
		return
	}
	g.damageAt, g.done = 0, false
	g.target = 0 // the next commit is the last: torn, or after the bad line
	g.note()
}

// turn writes one exchange: bookkeeping entries, a user message (or a bash
// execution), then assistant messages with their tool results, ending with
// a final answer.
func (g *gen) turn() {
	switch g.d {
	case "claude":
		g.claudeTurn()
		return
	case "codex":
		g.codexTurn()
		return
	case "messages":
		g.messagesTurn()
		return
	}
	r := g.r
	g.turns++
	g.zh = r.Chance(g.o.ChineseShare)
	g.extras()
	if g.done {
		return
	}
	if g.pi && r.Intn(40) == 0 {
		g.bashExecution()
		if g.done {
			return
		}
	}
	g.user()
	for r.Intn(100) < 80 && !g.done {
		n := 1
		if k := r.Intn(100); k >= 98 {
			n = 3
		} else if k >= 92 {
			n = 2
		}
		g.assistant("toolUse", n)
		for _, c := range g.calls {
			if g.done {
				return
			}
			g.result(c)
		}
	}
	if g.done {
		return
	}
	switch k := r.Intn(100); { // per turn as measured: 65 stop, 21 aborted, 1 error in 88 turns
	case k < 75:
		g.assistant("stop", 0)
	case k < 99:
		g.assistant("aborted", 0)
	default:
		g.assistant("error", 0)
	}
}

// prose appends about n bytes of text in the turn's language to g.txt.
func (g *gen) prose(n int) {
	if g.zh {
		g.txt = g.t.zhProse(g.txt, n)
	} else {
		g.txt = g.t.prose(g.txt, n)
	}
}

func (g *gen) user() {
	r := g.r
	g.begin("message", g.leaf, userGap.Draw(r))
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
	withImage := g.image > 0 && g.w.n+int64(g.image) <= g.target*85/100
	if !withImage && r.Intn(7) == 0 {
		g.line = appendString(g.line, g.spliced(0)) // a string, not an array: pi accepts both
	} else {
		g.line = append(g.line, `[{"type":"text"`...)
		g.line = appendStr(g.line, "text", g.spliced(0))
		g.line = append(g.line, '}')
		if withImage {
			g.line = append(g.line, `,{"type":"image","data":"`...)
			g.streamImage(g.image)
			g.image = 0
			g.line = append(g.line, `","mimeType":"image/png"}`...)
		}
		g.line = append(g.line, ']')
	}
	g.line = appendInt(g.line, "timestamp", g.clock-int64(r.Intn(30)))
	g.line = append(g.line, '}')
	g.commit(kindUser)
}

// assistant writes an assistant message ending with stop ("toolUse",
// "stop", "aborted" or "error") and, for toolUse, n tool calls that
// g.calls then lists.
func (g *gen) assistant(stop string, n int) {
	r := g.r
	m := models[g.model]
	gap := entryGap.Draw(r)
	g.begin("message", g.leaf, gap)
	g.line = append(g.line, `,"message":{"role":"assistant","content":[`...)
	g.txt = g.txt[:0]
	blocks := 0
	sep := func() {
		if blocks > 0 {
			g.line = append(g.line, ',')
		}
		blocks++
	}
	if stop != "aborted" || r.Intn(2) == 0 {
		if g.thinking > 0 && r.Intn(10) < 6 {
			sep()
			g.line = append(g.line, `{"type":"thinking"`...)
			start := len(g.txt)
			g.prose(g.fit(thinkText.Draw(r)))
			g.line = appendStr(g.line, "thinking", g.spliced(start))
			if m.provider == "anthropic" {
				g.line = append(g.line, `,"thinkingSignature":"`...)
				sig := g.scratch[:0]
				for range r.Range(200, 500) {
					sig = append(sig, byte(r.Uint64()))
				}
				g.line, g.scratch = appendBase64(g.line, sig), sig
				g.line = append(g.line, '"')
			}
			g.line = append(g.line, '}')
		}
		if stop != "toolUse" || r.Intn(100) < 45 {
			sep()
			g.line = append(g.line, `{"type":"text"`...)
			start := len(g.txt)
			g.prose(g.fit(asstText.Draw(r)))
			g.line = appendStr(g.line, "text", g.spliced(start))
			g.line = append(g.line, '}')
		}
	}
	g.calls = g.calls[:0]
	for range n {
		sep()
		g.toolCall(m)
	}
	g.line = append(g.line, ']')
	g.line = appendStr(g.line, "api", m.api)
	g.line = appendStr(g.line, "provider", m.provider)
	g.line = appendStr(g.line, "model", m.id)
	g.usage(m, len(g.txt))
	g.line = appendStr(g.line, "stopReason", stop)
	g.line = appendInt(g.line, "timestamp", g.clock-int64(min(gap-1, r.Range(300, 5000))))
	switch stop {
	case "aborted":
		g.line = appendStr(g.line, "errorMessage", "Request was aborted")
	case "error":
		g.line = appendStr(g.line, "errorMessage", "terminated")
	}
	g.line = append(g.line, '}')
	g.commit(kindAssistant)
}

// usage appends pi's usage object: token counts and their cost in USD.
func (g *gen) usage(m model, textBytes int) {
	r := g.r
	in, out := int64(r.Range(1, 40)), int64(textBytes/4+r.Range(10, 300))
	cacheRead, cacheWrite := min(g.sinceCmp/4, 200_000), int64(r.Intn(4000))
	b := append(g.line, `,"usage":{"input":`...)
	b = strconv.AppendInt(b, in, 10)
	b = appendInt(b, "output", out)
	b = appendInt(b, "cacheRead", cacheRead)
	b = appendInt(b, "cacheWrite", cacheWrite)
	b = appendInt(b, "totalTokens", in+out+cacheRead+cacheWrite)
	cost := func(b []byte, key string, tokens int64, price float64) ([]byte, float64) {
		v := math.Round(float64(tokens)*price) / 1e6 // USD, to the millionth of a cent
		return strconv.AppendFloat(appendKey(b, key), v, 'f', -1, 64), v
	}
	b = append(b, `,"cost":{`...)
	var c1, c2, c3, c4 float64
	b, c1 = cost(b, "input", in, m.in)
	b, c2 = cost(b, "output", out, m.out)
	b, c3 = cost(b, "cacheRead", cacheRead, m.in/10)
	b, c4 = cost(b, "cacheWrite", cacheWrite, m.in*1.25)
	b = strconv.AppendFloat(appendKey(b, "total"), math.Round((c1+c2+c3+c4)*1e6)/1e6, 'f', -1, 64)
	g.line = append(b, "}}"...)
}

// appendBase64 appends the standard base64 of raw.
func appendBase64(b, raw []byte) []byte {
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(raw); i += 3 {
		var v uint32
		n := min(3, len(raw)-i)
		for j := range n {
			v |= uint32(raw[i+j]) << (16 - 8*j)
		}
		b = append(b, enc[v>>18&63], enc[v>>12&63])
		if n > 1 {
			b = append(b, enc[v>>6&63])
		} else {
			b = append(b, '=')
		}
		if n > 2 {
			b = append(b, enc[v&63])
		} else {
			b = append(b, '=')
		}
	}
	return b
}
