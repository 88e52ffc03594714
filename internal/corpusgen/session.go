package corpusgen

import (
	"bufio"
	"encoding/base64"
	"os"
	"strconv"
)

// Entry kinds kept per entry (the low 4 bits of tree.kinds; the high bits
// hold the markers the entry carries).
const (
	kindOther = iota
	kindUser
	kindAssistant
	kindToolResult
)

// tree is what a session keeps of its entries: ids and edges, never
// bodies, so memory grows by 29 bytes per entry, not with their size.
type tree struct {
	ids     []uint32
	parents []int32 // index of the parent; -1 root, -2 missing (the missing_parent damage)
	kinds   []uint8
	offsets []int64 // where the line starts in the file
	lens    []int32 // line length without its LF, bytes
	times   []int64 // entry time, Unix ms
}

func (t *tree) add(id uint32, parent int32, kind uint8, off int64, n int, ms int64) {
	t.ids = append(t.ids, id)
	t.parents = append(t.parents, parent)
	t.kinds = append(t.kinds, kind)
	t.offsets = append(t.offsets, off)
	t.lens = append(t.lens, int32(n))
	t.times = append(t.times, ms)
}

func (t *tree) len() int { return len(t.ids) }

// up returns the entry steps parents above i, stopping at a root.
func (t *tree) up(i int32, steps int) int32 {
	for ; steps > 0 && t.parents[i] >= 0; steps-- {
		i = t.parents[i]
	}
	return i
}

// fileWriter writes one session file through a buffer and counts its
// bytes.
type fileWriter struct {
	f  *os.File
	bw *bufio.Writer
	n  int64
}

func (w *fileWriter) write(b []byte) {
	w.bw.Write(b) // an error sticks in bw and comes back from Flush
	w.n += int64(len(b))
}

// gen generates one session file. It is a state machine over the current
// leaf: every new entry is a child of the leaf and becomes the leaf, except
// where a branch (turn.go) moves the leaf to an earlier entry first.
type gen struct {
	r   *rng
	t   text
	o   *Options
	p   *plan
	w   *fileWriter
	tr  tree
	out *File
	pi  bool
	d   string // the dialect: pi, plain, claude, codex, messages
	// lineIDs: entry ids are L<line> (codex, messages); tree ids then
	// hold the physical line.
	lineIDs bool
	// Claude (claude.go): the part of every uuid after its first 8 hex
	// digits, the sessionId field (the parent's for a sub-agent), the
	// sub-agent's id, the id the next entry takes (0: a new one), and the
	// sub-agents this session starts with a Task call.
	uuidTail  string
	uuidSalt  uint32
	sessionID string
	agent     string
	preset    uint32
	agents    []*plan
	// names are the session names given, in file order, for the forks
	// that copy them: at is the pi session_info entry's index, or the
	// byte offset of the Claude custom-title line.
	names  []named
	salt   uint32 // entry ids are permute(counter, salt)
	next   uint32 // the next counter
	taken  map[uint32]bool
	mk     markers
	clock  int64 // Unix ms of the last entry
	target int64 // bytes to write; the session ends at the first entry that reaches it

	line    []byte // the entry being built
	txt     []byte // raw text before escaping
	streamd int    // bytes of the entry already written (a streamed image)
	parent  int32  // parent of the entry being built
	id      uint32
	carried uint8 // markers in the entry being built
	lines   int   // physical lines written
	leaf    int32
	done    bool // the target size is reached (or the torn tail written)

	damageAt int64 // byte count from which the planned damage is made
	damaged  bool

	// conversation state (turn.go)
	zh       bool // the current turn is in Chinese
	model    int
	thinking int
	turns    int
	sinceCmp int64 // bytes since the last compaction
	cmpEvery int64
	image    int // base64 bytes of the image still to place
	calls    []call
	scratch  []byte
}

// named is a session name given at a place of the file (gen.names).
type named struct {
	at   int64
	name string
}

// slack is how far below its target a session may stop, in bytes: about
// half a median entry, so that sizes land on target on average.
const slack = 300

// fit caps a drawn text size n (bytes) so that the entry still fits in
// what is left of the target: small sessions and corpora land on size.
func (g *gen) fit(n int) int {
	return int(max(16, min(int64(n), g.target-g.w.n-400)))
}

// newID returns a fresh entry id of this session.
func (g *gen) newID() uint32 {
	for {
		id := permute(g.next, g.salt)
		g.next++
		if !g.taken[id] {
			return id
		}
	}
}

// begin starts an entry of type typ as a child of parent, dt milliseconds
// after the last one: the common fields of the dialect (pi: type, id,
// parentId, timestamp; plain: id, parentId, timestamp, type).
func (g *gen) begin(typ string, parent int32, dt int) {
	g.clock += int64(dt)
	g.parent, g.id, g.carried, g.streamd = parent, g.newID(), 0, 0
	g.mk.tick()
	b := g.line[:0]
	if g.pi {
		b = append(b, `{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","id":"`...)
	} else {
		b = append(b, `{"id":"`...)
	}
	b = appendHex8(b, g.id)
	b = append(b, `","parentId":`...)
	switch {
	case g.p.damage == DamageMissingParent && !g.damaged && g.w.n >= g.damageAt && parent >= 0:
		g.damaged, g.parent = true, -2
		g.out.DamageLine = g.lines + 1
		b = append(b, '"')
		b = appendHex8(b, permute(^uint32(0), g.salt)) // a counter no entry reaches
		b = append(b, '"')
	case parent < 0:
		b = append(b, "null"...)
	default:
		b = append(b, '"')
		b = appendHex8(b, g.tr.ids[parent])
		b = append(b, '"')
	}
	if g.pi {
		b = append(b, `,"timestamp":"`...)
		b = appendISO(b, g.clock)
		b = append(b, '"')
	} else {
		b = append(b, `,"timestamp":`...)
		b = strconv.AppendInt(b, g.clock, 10)
		b = append(b, `,"type":"`...)
		b = append(b, typ...)
		b = append(b, '"')
	}
	g.line = b
}

// spliced splices the due markers into the raw text g.txt[start:] and
// returns it, ready to be escaped into the line.
func (g *gen) spliced(start int) []byte {
	var got uint8
	g.txt, got = g.mk.splice(g.r, g.txt, start)
	g.carried |= got
	return g.txt[start:]
}

// commit closes the entry, writes it with its LF and makes it the leaf.
// The planned damage happens here: a bad line before it, or, when it is
// the last entry, a torn tail instead of it.
func (g *gen) commit(kind uint8) {
	if g.d == "claude" {
		g.line = append(appendKey(g.line, "uuid"), '"')
		g.line = append(g.appendUUID(g.line, g.id), '"')
		g.line = append(appendKey(g.line, "timestamp"), '"')
		g.line = append(appendISO(g.line, g.clock), '"')
	}
	g.line = append(g.line, '}')
	n := g.streamd + len(g.line)
	last := g.w.n+int64(len(g.line))+1 >= g.target-slack
	switch {
	case g.p.damage == DamageBadLine && !g.damaged && g.w.n >= g.damageAt && g.streamd == 0:
		g.damaged = true
		cut := len(g.line) / 2 // half an entry: no closing brace, so never JSON
		g.w.write(g.line[:cut])
		g.w.write([]byte{'\n'})
		g.lines++
		g.out.DamageLine = g.lines
	case g.p.damage == DamageTornTail && last && g.streamd == 0:
		g.damaged, g.done = true, true
		g.w.write(g.line[:max(1, len(g.line)-1-g.r.Intn(len(g.line)/2+1))])
		g.lines++
		g.out.DamageLine = g.lines
		return
	}
	off := g.w.n - int64(g.streamd)
	if g.lineIDs {
		g.id = uint32(g.lines + 1)
	}
	g.w.write(g.line)
	g.w.write([]byte{'\n'})
	g.lines++
	g.tr.add(g.id, g.parent, kind|g.carried<<4, off, n, g.clock)
	g.leaf = int32(g.tr.len() - 1)
	g.out.Entries++
	for i := range nMarkers {
		if g.carried&(1<<i) != 0 {
			g.out.Markers[i]++
		}
	}
	g.sinceCmp += int64(n)
	g.done = g.w.n >= g.target-slack
}

// streamImage writes the line built so far, then size bytes of base64 of
// a PNG made of random bytes, straight to the file: the image is never
// held whole in memory.
func (g *gen) streamImage(size int) {
	g.w.write(g.line)
	g.streamd += len(g.line)
	g.line = g.line[:0]
	raw := make([]byte, 48<<10)
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for left := size; left > 0; {
		for i := 0; i+8 <= len(raw); i += 8 {
			v := g.r.Uint64()
			for j := range 8 {
				raw[i+j] = byte(v >> (8 * j))
			}
		}
		copy(raw, png)
		png = nil
		m := min(left, len(enc))
		base64.StdEncoding.Encode(enc, raw)
		g.w.write(enc[:m])
		g.streamd += m
		left -= m
	}
	g.out.Images++
}
