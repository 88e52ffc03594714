package testutil

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// AppendInput is what a user pipes into `grove append`: n compact JSON
// lines of dialect ("plain", "pi" or "messages"; a pi file's header is the
// first line and counts in n), each one a line the writer takes, so that
// the file grove writes must be these bytes exactly. Lines are 10 to ~3,000
// bytes of JSON text mixing ASCII, multibyte UTF-8 (é, 中文, 🌳) and JSON
// escapes (\", \\, \n, \t, \u00e9, an escaped surrogate pair, \u2028,
// \/); big of them, spread over the input, are over 1 MiB (1.1 to 1.6 MiB).
// plain and pi entries form a tree (mostly a chain, with branches from
// recent entries), messages a chat of user and assistant lines, some with
// tool_use and tool_result blocks. The same seed gives the same bytes.
func AppendInput(dialect string, n, big int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x67726f7665))
	bigAt := map[int]bool{}
	for len(bigAt) < min(big, n-1) {
		bigAt[1+r.IntN(n-1)] = true
	}
	var buf bytes.Buffer
	var ids []string
	base := time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC)
	for i := range n {
		size := 10 + r.IntN(3000)
		if bigAt[i] {
			size = 1<<20 + 100<<10 + r.IntN(500<<10)
		}
		text := jsonText(r, size)
		parent := "null"
		if len(ids) > 0 {
			p := ids[len(ids)-1]
			if r.IntN(15) == 0 {
				p = ids[max(0, len(ids)-1-r.IntN(20))]
			}
			parent = `"` + p + `"`
		}
		id := fmt.Sprintf("%s-%05d", string(rune('a'+r.IntN(26))), i)
		switch dialect {
		case "plain":
			ts := base.Add(time.Duration(i) * time.Second).UnixMilli()
			if r.IntN(10) == 0 {
				fmt.Fprintf(&buf, `{"id":"%s","parentId":%s,"timestamp":%d,"type":"metadata","key":"note","value":"%s"}`, id, parent, ts, text)
			} else {
				fmt.Fprintf(&buf, `{"id":"%s","parentId":%s,"timestamp":%d,"type":"message","message":%s}`, id, parent, ts, piMessage(r, text))
			}
			ids = append(ids, id)
		case "pi":
			if i == 0 {
				fmt.Fprintf(&buf, `{"type":"session","version":3,"id":"pipe-%d","timestamp":"%s","cwd":"/workspace/pipe"}`, seed, base.Format("2006-01-02T15:04:05.000Z"))
				break
			}
			ts := base.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
			fmt.Fprintf(&buf, `{"type":"message","id":"%s","parentId":%s,"timestamp":"%s","message":%s}`, id, parent, ts, piMessage(r, text))
			ids = append(ids, id)
		case "messages":
			switch k := r.IntN(10); {
			case i%2 == 0:
				fmt.Fprintf(&buf, `{"role":"user","content":"%s"}`, text)
			case k == 0:
				fmt.Fprintf(&buf, `{"role":"assistant","content":[{"type":"text","text":"%s"},{"type":"tool_use","id":"tu_%d","name":"bash","input":{"command":"%s"}}]}`, text, i, jsonText(r, 20))
			case k == 1:
				fmt.Fprintf(&buf, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_%d","content":"%s"}]}`, i-1, text)
			default:
				fmt.Fprintf(&buf, `{"role":"assistant","content":"%s"}`, text)
			}
		default:
			panic("AppendInput: no dialect " + dialect)
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// piMessage is a pi message of the plain dialect's shapes (SPEC §3.1) with
// text, a JSON string's contents, in its text block.
func piMessage(r *rand.Rand, text string) string {
	switch r.IntN(4) {
	case 0:
		return `{"role":"user","content":"` + text + `"}`
	case 1:
		return `{"role":"assistant","content":[{"type":"thinking","thinking":"` + jsonText(r, 30) + `"},{"type":"text","text":"` + text + `"},{"type":"toolCall","id":"call-1","name":"read","arguments":{"path":"/tmp/\u00e9.txt"}}],"provider":"anthropic","model":"m","usage":{"input":12,"output":9007199254740991}}`
	case 2:
		return `{"role":"toolResult","toolCallId":"call-1","toolName":"read","isError":false,"content":[{"type":"text","text":"` + text + `"}],"details":{"lines":[1,2.5,-3e-7]}}`
	}
	return `{"role":"user","content":[{"type":"text","text":"` + text + `"}]}`
}

// jsonPieces are the contents of JSON strings a text is made of: plain
// words, multibyte characters and escapes.
var jsonPieces = []string{
	"grove ", "the path ", "leaf ", "é", "中文会话", "🌳", "Ω≈ç", `\"quoted\"`, `\\`, `\n`, `\t`,
	`\u00e9`, `\ud83c\udf33`, `\u2028`, `\/`, "<b>&amp;</b> ", `\u0001`, "tab\u00a0nbsp ",
}

// jsonText is the contents of a JSON string of about size bytes.
func jsonText(r *rand.Rand, size int) string {
	var b strings.Builder
	b.Grow(size + 16)
	for b.Len() < size {
		b.WriteString(jsonPieces[r.IntN(len(jsonPieces))])
	}
	return b.String()
}
