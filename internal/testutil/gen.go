package testutil

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// PiSession returns a pi version 3 session of at least size bytes: mostly a
// chain with occasional branches; user prompts of a few hundred bytes,
// assistant turns of 1-5 KB (thinking, text, a tool call), tool results of
// up to ~16 KB, a few small bookkeeping entries, and, every 4 MB, a 1 MB
// tool result holding a base64 image, as a screenshot makes in pi.
func PiSession(size int, seed int64) []byte { return piSession(seed, size, 0) }

// PiSessionEntries returns a pi version 3 session of n entries made as
// PiSession makes them, without the images: about 2.5 KB an entry.
func PiSessionEntries(n int, seed int64) []byte { return piSession(seed, 0, n) }

// piSession is PiSession (entries 0: size bytes or more, with images) or
// PiSessionEntries (entries > 0: that many, no image).
func piSession(seed int64, size, entries int) []byte {
	r := rand.New(rand.NewSource(seed))
	var buf bytes.Buffer
	buf.Grow(size + 2<<20)
	buf.WriteString(`{"type":"session","version":3,"id":"bench-5b7e2c14-9a3d-4f60","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/bench"}` + "\n")
	base := time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC)
	var ids []string
	nextImage := 4 << 20
	for i := 1; (entries == 0 && buf.Len() < size) || (entries > 0 && i <= entries); i++ {
		id := fmt.Sprintf("%08x", uint32(i)*2654435761)
		parent := "null"
		if n := len(ids); n > 0 {
			p := ids[n-1]
			if r.Intn(20) == 0 { // a branch from a recent entry
				p = ids[max(0, n-1-r.Intn(50))]
			}
			parent = JSONString(p)
		}
		ts := JSONString(base.Add(time.Duration(i) * 1500 * time.Millisecond).Format("2006-01-02T15:04:05.000Z"))
		head := `{"type":%q,"id":"` + id + `","parentId":` + parent + `,"timestamp":` + ts
		var line string
		switch k := r.Intn(100); {
		case entries == 0 && buf.Len() >= nextImage:
			nextImage += 4 << 20
			img := make([]byte, 768<<10) // 1 MB of base64
			r.Read(img)
			line = fmt.Sprintf(head+`,"message":{"role":"toolResult","toolCallId":"toolu_%s","toolName":"screenshot","isError":false,"content":[{"type":"image","data":"%s","mimeType":"image/png"}]}}`,
				"message", id, base64.StdEncoding.EncodeToString(img))
		case k < 25:
			line = fmt.Sprintf(head+`,"message":{"role":"user","content":[{"type":"text","text":%s}],"timestamp":%d}}`,
				"message", JSONString(Words(r, 10+r.Intn(60))), 1772524800000+int64(i)*1500)
		case k < 60:
			line = fmt.Sprintf(head+`,"message":{"role":"assistant","content":[{"type":"thinking","thinking":%s},{"type":"text","text":%s},{"type":"toolCall","id":"toolu_%s","name":"bash","arguments":{"command":%s}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":%d,"output":%d,"cacheRead":0,"cacheWrite":0,"totalTokens":%d},"stopReason":"toolUse","timestamp":%d}}`,
				"message", JSONString(Words(r, 20+r.Intn(300))), JSONString(Words(r, 10+r.Intn(150))), id, JSONString(Words(r, 3+r.Intn(12))),
				r.Intn(100000), r.Intn(4000), r.Intn(104000), 1772524800000+int64(i)*1500)
		case k < 95:
			line = fmt.Sprintf(head+`,"message":{"role":"toolResult","toolCallId":"toolu_%s","toolName":"bash","isError":%v,"content":[{"type":"text","text":%s}],"details":{"exitCode":%d}}}`,
				"message", id, r.Intn(10) == 0, JSONString(output(r, 1+r.Intn(200))), r.Intn(3))
		case k < 97:
			line = fmt.Sprintf(head+`,"thinkingLevel":%q}`, "thinking_level_change", []string{"off", "low", "medium", "high"}[r.Intn(4)])
		case k < 98:
			line = fmt.Sprintf(head+`,"provider":"anthropic","modelId":"claude-sonnet-4-5"}`, "model_change")
		case k < 99 && len(ids) > 0:
			line = fmt.Sprintf(head+`,"targetId":%s,"label":%s}`, "label", JSONString(ids[r.Intn(len(ids))]), JSONString(Words(r, 2)))
		default:
			line = fmt.Sprintf(head+`,"customType":"bench-ext","data":{"n":%d}}`, "custom", i)
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		ids = append(ids, id)
	}
	return buf.Bytes()
}

var vocab = strings.Fields(`the a file test function return error nil value context path leaf entry
	index session branch commit read write parse line offset byte go run build main package import
	struct interface 读取 文件 测试 函数 错误 会话 分支 "quoted" back\slash tab	x emoji-🌳 über café`)

// Words returns n words of vocab separated by spaces, with a newline now and then.
func Words(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if r.Intn(15) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(vocab[r.Intn(len(vocab))])
	}
	return b.String()
}

// output returns n lines that look like a command's output (~80 bytes each).
func output(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", []string{"src/main.go", "jsonl/reader.go", "index/query.go"}[r.Intn(3)], r.Intn(900), r.Intn(80), Words(r, 4+r.Intn(8)))
	}
	return b.String()
}

// JSONString returns s as a JSON string.
func JSONString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
