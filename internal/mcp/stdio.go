package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine is the longest line, in bytes, a client may send (the SDK's own
// bound, sdk.DefaultMaxLineLength): a longer one is answered with an
// error and passed over.
const MaxLine = sdk.DefaultMaxLineLength

// Stdio is the stdio transport of `grove mcp` (MCP "stdio": one JSON-RPC
// message a line, in on in, out on out) with a guard in front of the
// SDK's: a line that is no JSON-RPC message the SDK can take — not JSON
// (-32700), a batch, which MCP 2025-06-18 dropped, a message of the wrong
// shape or an id neither string nor number (-32600), a line over MaxLine
// — is answered at once with a JSON-RPC error (id null, or the line's id
// when it has a good one) and the server goes on reading, where the SDK
// would end the session (JSON-RPC 2.0 §5.1: "Parse error", "Invalid
// Request"). Every other line reaches the SDK as it came. Responses, the
// SDK's and the guard's, are written to out one whole line at a time.
//
// At the end of in, the requests read and not yet answered are answered
// before the SDK is told the input ended (it would cancel them): a client
// that writes its requests and closes its end gets every answer.
func Stdio(in io.Reader, out io.Writer) sdk.Transport {
	pr, pw := io.Pipe()
	w := &lineWriter{w: out, open: map[string]bool{}}
	w.idle = sync.NewCond(&w.mu)
	go guard(in, pw, w)
	return &sdk.IOTransport{Reader: pr, Writer: w}
}

// guard copies the good lines of in to pw and answers the others on w;
// it closes pw at the end of in (or with in's read error).
func guard(in io.Reader, pw *io.PipeWriter, w *lineWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, long, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 || long {
			if why, code := check(line, long); why != "" {
				w.reply(idOf(line), code, why)
			} else {
				w.asked(line)
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the server stopped reading
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
				w.wait()
			}
			pw.CloseWithError(err)
			return
		}
	}
}

// readLine is the next line of r without its LF; long is set, and the
// line dropped, when it is over MaxLine.
func readLine(r *bufio.Reader) (line []byte, long bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(part) > MaxLine {
				long, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), long, err
	}
}

// check says why line is no message the SDK takes, with its JSON-RPC
// error code; "" when it is one.
func check(line []byte, long bool) (string, int64) {
	switch t := bytes.TrimSpace(line); {
	case long:
		return "the line is longer than grove mcp reads (16 MiB)", -32600
	case !json.Valid(t):
		return "parse error: the line is not JSON (one JSON-RPC message a line)", -32700
	case t[0] == '[':
		return "JSON-RPC batches are not supported (MCP 2025-06-18 and later): send one message a line", -32600
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return "invalid request: " + err.Error(), -32600
	}
	return "", 0
}

// idOf is the id of a JSON-RPC object line when it is a string or a
// number, else nil (JSON null in the reply).
func idOf(line []byte) any {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var id any
	if json.Unmarshal(m.ID, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// lineWriter writes each Write whole, one at a time: the SDK writes a
// message and its LF in one call, and so does reply. It keeps the ids of
// the requests passed to the SDK that no response has answered yet.
type lineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	open map[string]bool // request ids (their JSON) not answered yet
	idle *sync.Cond      // signalled when open empties
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.open) > 0 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(p, &m) == nil && m.Method == "" && len(m.ID) > 0 {
			delete(l.open, string(m.ID))
			if len(l.open) == 0 {
				l.idle.Broadcast()
			}
		}
	}
	return l.w.Write(p)
}

// asked notes the id of a request line (one with a method and an id) that
// goes to the SDK.
func (l *lineWriter) asked(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	l.mu.Lock()
	l.open[string(m.ID)] = true
	l.mu.Unlock()
}

// answerWait bounds how long the end of the input waits for answers.
const answerWait = 5 * time.Minute

// wait returns once every request asked has been answered, or after
// answerWait.
func (l *lineWriter) wait() {
	done := make(chan struct{})
	timer := time.AfterFunc(answerWait, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		close(done)
		l.idle.Broadcast()
	})
	defer timer.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.open) > 0 {
		select {
		case <-done:
			return
		default:
		}
		l.idle.Wait()
	}
}

func (l *lineWriter) Close() error { return nil }

// reply writes a JSON-RPC error response with id (nil: null).
func (l *lineWriter) reply(id any, code int64, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	l.Write(append(b, '\n'))
}
