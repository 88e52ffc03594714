package testutil

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand"
)

// LongLineWord is the word WriteLongLineSession puts near the end of its
// long text line (and nowhere else): a search for it must find that entry.
const LongLineWord = "quokkalongline"

// LongLineIDs are the ids of the entries WriteLongLineSession writes, in
// file order: a user prompt, the assistant's tool call, the tool result
// holding the image (line 4), the user's long text (line 5), the
// assistant's answer (the leaf).
var LongLineIDs = []string{"11111111", "22222222", "33333333", "44444444", "55555555"}

// WriteLongLineSession writes a pi version 3 session of one chain of
// six lines to w (SPEC §2.8's memory rule): a header, a
// user prompt, an assistant tool call, a tool result whose only block is a
// base64 PNG image of imageBytes bytes of base64, a user message of about
// textBytes bytes of words (LongLineWord near its end) and a short
// assistant answer. The bytes depend only on the sizes and seed; the long
// values are streamed to w, never held whole.
func WriteLongLineSession(w io.Writer, imageBytes, textBytes int64, seed int64) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	r := rand.New(rand.NewSource(seed))
	id := LongLineIDs
	fmt.Fprintf(bw, `{"type":"session","version":3,"id":"longline-%d","timestamp":"2026-03-03T08:00:00.000Z","cwd":"/workspace/longline"}`+"\n", seed)
	fmt.Fprintf(bw, `{"type":"message","id":%q,"parentId":null,"timestamp":"2026-03-03T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"take a screenshot of the page"}],"timestamp":1772524801000}}`+"\n", id[0])
	fmt.Fprintf(bw, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-03T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_shot","name":"screenshot","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"stopReason":"toolUse","timestamp":1772524802000}}`+"\n", id[1], id[0])
	fmt.Fprintf(bw, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-03T08:00:03.000Z","message":{"role":"toolResult","toolCallId":"toolu_shot","toolName":"screenshot","isError":false,"content":[{"type":"image","data":"`, id[2], id[1])
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	enc.Write([]byte("\x89PNG\r\n\x1a\n"))
	raw := make([]byte, 3<<12)
	for left := imageBytes*3/4 - 8; left > 0; left -= int64(len(raw)) {
		r.Read(raw)
		if left < int64(len(raw)) {
			raw = raw[:left]
		}
		enc.Write(raw)
	}
	enc.Close()
	bw.WriteString(`","mimeType":"image/png"}]}}` + "\n")
	fmt.Fprintf(bw, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-03T08:00:04.000Z","message":{"role":"user","content":[{"type":"text","text":"`, id[3], id[2])
	var n int64
	for n < textBytes-200 {
		var s string
		if r.Intn(12) == 0 {
			s = `\n`
		} else {
			s = vocab[r.Intn(len(vocab))]
			s = JSONString(s)
			s = s[1:len(s)-1] + " "
		}
		bw.WriteString(s)
		n += int64(len(s))
	}
	bw.WriteString("and at the very end " + LongLineWord + ` — café 读取"}],"timestamp":1772524804000}}` + "\n")
	fmt.Fprintf(bw, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-03-03T08:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The page shows the login form."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":20,"output":8,"cacheRead":0,"cacheWrite":0,"totalTokens":28},"stopReason":"stop","timestamp":1772524805000}}`+"\n", id[4], id[3])
	return bw.Flush()
}
