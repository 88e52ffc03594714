package transcript

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/grove-sessions/grove/jsonl"
)

// field is one key of a JSON object, its value kept raw.
type field struct {
	Key string
	Val json.RawMessage
}

// object is a JSON object with its keys in file order. A key given twice
// keeps both fields; lookups see the last one, as JSON.parse does in pi.
type object []field

// parseObject decodes raw as one JSON object. ok is false for anything else
// (another JSON value, trailing data, invalid JSON). The values are
// sub-slices of raw, not copies (jsonl.Members): a line holding a 50 MB
// image is not held twice over (SPEC §2.8).
func parseObject(raw []byte) (o object, ok bool) {
	ok = jsonl.Members(raw, func(k string, v []byte) bool {
		o = append(o, field{k, v})
		return true
	})
	if !ok {
		return nil, false
	}
	return o, true
}

// parseArray decodes raw as one JSON array of raw values, sub-slices of raw.
func parseArray(raw []byte) ([]json.RawMessage, bool) {
	a := []json.RawMessage{}
	if !jsonl.Elements(raw, func(e []byte) { a = append(a, e) }) {
		return nil, false
	}
	return a, true
}

// kind returns the first byte of the JSON value raw ('{', '[', '"', 't',
// 'f', 'n', a digit or '-'), or 0 when raw is blank.
func kind(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// get returns the raw value of key, or nil.
func (o object) get(key string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Val
		}
	}
	return nil
}

func (o object) has(key string) bool { return o.get(key) != nil }

// str returns the value of key when it is a JSON string.
func (o object) str(key string) (string, bool) { return asString(o.get(key)) }

// text returns the value of key when it is a string, else "".
func (o object) text(key string) string {
	s, _ := o.str(key)
	return s
}

// boolean returns the value of key when it is true or false.
func (o object) boolean(key string) (v, ok bool) {
	switch string(bytes.TrimSpace(o.get(key))) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// obj returns the value of key when it is an object.
func (o object) obj(key string) (object, bool) {
	raw := o.get(key)
	if kind(raw) != '{' {
		return nil, false
	}
	return parseObject(raw)
}

// without returns o minus the named keys.
func (o object) without(keys ...string) object {
	var r object
outer:
	for _, f := range o {
		for _, k := range keys {
			if f.Key == k {
				continue outer
			}
		}
		r = append(r, f)
	}
	return r
}

// raw encodes o back into compact JSON, values as they were.
func (o object) raw() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(f.Key))
		b.WriteByte(':')
		b.Write(f.Val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// quote writes s as a JSON string, leaving <, > and & as they are.
func quote(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// stringBytes is the JSON string raw's value as bytes: a sub-slice of raw,
// not a copy, when it holds no escape and is valid UTF-8 (then its bytes
// are its value), else asString's value.
func stringBytes(raw json.RawMessage) ([]byte, bool) {
	if kind(raw) != '"' {
		return nil, false
	}
	t := bytes.TrimSpace(raw)
	if len(t) >= 2 && t[len(t)-1] == '"' && bytes.IndexByte(t, '\\') < 0 && utf8.Valid(t) {
		return t[1 : len(t)-1], true
	}
	s, ok := asString(raw)
	return []byte(s), ok
}

func asString(raw json.RawMessage) (string, bool) {
	if kind(raw) != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// number returns the JSON number raw as written, e.g. "51234" or "1.5".
func number(raw json.RawMessage) (string, bool) {
	t := string(bytes.TrimSpace(raw))
	if t == "" || !json.Valid(raw) || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return "", false
	}
	return t, true
}

// grouped writes an integer JSON number with thousands separators
// ("51234" → "51,234"); other numbers are returned as written.
func grouped(n string) string {
	if _, err := strconv.ParseInt(n, 10, 64); err != nil {
		return n
	}
	neg := strings.HasPrefix(n, "-")
	d := strings.TrimPrefix(n, "-")
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// pretty returns raw indented by two spaces with its keys in the order
// written and the base64 data of image blocks replaced by a note, so base64
// never reaches a transcript (pi's image blocks: {"type":"image","data",
// "mimeType"}). Raw that is not one valid JSON value comes back as text.
// Strings are re-quoted, so an escape like \u00e9 shows as é.
func pretty(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return clean(string(raw))
	}
	if _, err := dec.Token(); err != io.EOF {
		return clean(string(raw))
	}
	var b strings.Builder
	n.write(&b, "")
	return clean(b.String())
}

// maxIndent caps the indentation of pretty, in spaces: deeper values are
// not indented further, so the output stays linear in the input.
const maxIndent = 64

// node is a JSON value with object keys in the order written.
type node struct {
	delim byte // '{' or '[', 0 for a scalar
	keys  []string
	vals  []*node
	lit   string // a scalar as JSON
	str   string // a string scalar's value
	isStr bool
}

// decodeNode reads one value from dec's token stream: time linear in its
// size at any depth. It is not built on jsonl.Members and jsonl.Elements
// as parseObject is: walking a tree through them costs its size times its
// depth, and json.Valid would refuse nesting past 10,000 that the token
// stream prints (TestPretty).
func decodeNode(dec *json.Decoder) (*node, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := t.(type) {
	case json.Delim:
		n := &node{delim: byte(v)}
		for dec.More() {
			if n.delim == '{' {
				t, err := dec.Token()
				k, isKey := t.(string)
				if err != nil || !isKey {
					return nil, errors.New("bad object key")
				}
				n.keys = append(n.keys, k)
			}
			c, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, c)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &node{lit: quote(v), str: v, isStr: true}, nil
	case json.Number:
		return &node{lit: v.String()}, nil
	case bool:
		return &node{lit: strconv.FormatBool(v)}, nil
	}
	return &node{lit: "null"}, nil
}

// field returns the last value of key in an object node.
func (n *node) field(key string) *node {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

func (n *node) write(b *strings.Builder, indent string) {
	if n.delim == 0 {
		b.WriteString(n.lit)
		return
	}
	end := byte(']')
	if n.delim == '{' {
		end = '}'
	}
	b.WriteByte(n.delim)
	if len(n.vals) == 0 {
		b.WriteByte(end)
		return
	}
	var img, mime string
	isImg := false
	if t := n.field("type"); n.delim == '{' && t != nil && (t.str == "image" || t.str == "base64") {
		// pi's image block, or an Anthropic base64 source (an image's or
		// a document's: {"type":"base64","media_type","data"}).
		if d := n.field("data"); d != nil && d.isStr {
			isImg, img = true, d.str
			if m := n.field("mimeType"); m != nil {
				mime = m.str
			} else if m := n.field("media_type"); m != nil {
				mime = m.str
			}
		}
	}
	in := indent
	if len(in) < maxIndent {
		in += "  "
	}
	for i, v := range n.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + in)
		if n.delim == '{' {
			b.WriteString(quote(n.keys[i]) + ": ")
			if isImg && n.keys[i] == "data" {
				note := imageNote(mime, []byte(img))
				if mime != "" && !strings.HasPrefix(mime, "image/") {
					note = "data: " + strings.TrimPrefix(note, "image: ") // a PDF document's, say
				}
				b.WriteString(quote("[" + note + "]"))
				continue
			}
			if note := hiddenValue(n.keys[i], v); note != "" {
				b.WriteString(quote(note))
				continue
			}
		}
		v.write(b, in)
	}
	b.WriteString("\n" + indent)
	b.WriteByte(end)
}

// image is a decoded pi image block.
type image struct {
	Mime  string
	Data  []byte // base64 as in the file (a sub-slice of the line when it has no escapes)
	Valid bool   // Data is standard base64
	Size  int    // decoded bytes, when Valid
	Skip  bool   // never embedded, a marker in both formats (Claude, Codex and messages-log images)
}

func decodeImage(mime string, data []byte) image {
	im := image{Mime: mime, Data: data}
	// Decoded through a small buffer and counted, not kept: a transcript
	// needs only the size (SPEC §2.8). The stream decoder accepts what
	// DecodeString accepts (newlines ignored, padding only at the end).
	n, err := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data)))
	if err == nil {
		im.Valid, im.Size = true, int(n)
	}
	return im
}

// imageNote describes an image without its data: "image: image/png, 12.3 KB".
func imageNote(mime string, data []byte) string {
	im := decodeImage(mime, data)
	if mime == "" {
		mime = "unknown type"
	}
	if !im.Valid {
		return "image: " + mime + ", " + byteSize(len(data)) + " of data that is not base64"
	}
	return "image: " + mime + ", " + byteSize(im.Size)
}

// byteSize formats n bytes with SI units: "980 B", "12.3 KB", "4.1 MB".
func byteSize(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n) + " B"
	case n < 1000*1000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	default:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	}
}

// clean makes s valid UTF-8 (invalid bytes become U+FFFD) and drops NUL,
// which HTML forbids and terminals mangle.
func clean(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// flat writes o on one line, {"path": "a.go", "limit": 20}, when it is short
// and holds no objects or arrays; otherwise as pretty does.
func flat(o object) string {
	parts := make([]string, 0, len(o))
	n := 0
	for _, f := range o {
		var c bytes.Buffer
		if json.Compact(&c, f.Val) != nil || kind(f.Val) == '{' || kind(f.Val) == '[' {
			return pretty(o.raw())
		}
		parts = append(parts, quote(f.Key)+": "+c.String())
		n += len(parts[len(parts)-1])
	}
	if n > 100 {
		return pretty(o.raw())
	}
	return clean("{" + strings.Join(parts, ", ") + "}")
}

// hiddenValue is the note that stands for the string value v of key in
// pretty's output, "" when v is shown: a Codex image's data URL
// (image_url "data:..."), encrypted content and signatures (Codex's
// encrypted_content, Anthropic's thinking signature) are data, not text.
func hiddenValue(key string, v *node) string {
	if !v.isStr {
		return ""
	}
	switch key {
	case "image_url":
		if rest, ok := strings.CutPrefix(v.str, "data:"); ok {
			mime, data, _ := strings.Cut(rest, ",")
			return "[" + imageNote(strings.TrimSuffix(mime, ";base64"), []byte(data)) + "]"
		}
	case "encrypted_content", "signature":
		if v.str != "" {
			return "[" + key + ", " + byteSize(len(v.str)) + ", not shown]"
		}
	}
	return ""
}
