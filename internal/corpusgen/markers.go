package corpusgen

// Words and phrases a search benchmark can query with a known answer. Each
// marker is spliced into the text of about one new entry in Every (counted
// over every entry a session generates; an entry without text passes the
// marker on to the next one that has some), and Manifest counts the
// committed entries that hold it. Copies made by forks hold it too.
const (
	// RareWord occurs in about one entry in RareWordEvery.
	RareWord      = "zanzibarquux"
	RareWordEvery = 10_000
	// UncommonWord occurs in about one entry in UncommonWordEvery.
	UncommonWord      = "marmaladequasar"
	UncommonWordEvery = 1_000
	// Phrase occurs in about one entry in PhraseEvery. Its second word,
	// "refused", occurs nowhere else.
	Phrase      = "connection refused"
	PhraseEvery = 500
	// CommonWord is the most frequent content word of English text (Zipf
	// rank 1 of enWords); about one entry in four holds it.
	CommonWord = "file"
	// ChineseWord is a frequent two-character word of Chinese text.
	ChineseWord = "索引"
)

const nMarkers = 3

// MarkerWords lists the marker words in the order of File.Markers.
var MarkerWords = [nMarkers]string{RareWord, UncommonWord, Phrase}

var markerEvery = [nMarkers]int{RareWordEvery, UncommonWordEvery, PhraseEvery}

// markers decides which new entries get a marker: each marker is due once
// every markerEvery entries, starting at a random offset, so a session of n
// entries holds n/every of them, give or take one.
type markers struct {
	left [nMarkers]int
	due  uint8 // bit i: marker i waits for an entry with text
}

func newMarkers(r *rng) markers {
	var m markers
	for i := range m.left {
		m.left[i] = 1 + r.Intn(markerEvery[i])
	}
	return m
}

// tick counts one new entry.
func (m *markers) tick() {
	for i := range m.left {
		if m.left[i]--; m.left[i] == 0 {
			m.due |= 1 << i
			m.left[i] = markerEvery[i]
		}
	}
}

// splice inserts the due markers into the raw text b[start:] at a random
// character boundary and returns the text and the markers it holds (bit i
// for MarkerWords[i]).
func (m *markers) splice(r *rng, b []byte, start int) ([]byte, uint8) {
	due := m.due
	if due == 0 {
		return b, 0
	}
	m.due = 0
	for i, w := range MarkerWords {
		if due&(1<<i) == 0 {
			continue
		}
		at := len(b)
		if n := len(b) - start; n > 0 {
			at = start + r.Intn(n)
			// At the next space within 32 bytes, so no word (and no
			// marker spliced before) is split; else at a character
			// boundary, as Chinese text has no spaces.
			for i := at; i < len(b) && i < at+32; i++ {
				if b[i] == ' ' {
					at = i
					break
				}
			}
			for at < len(b) && b[at]&0xc0 == 0x80 {
				at++
			}
		}
		ins := " " + w + " "
		b = append(b, ins...)
		copy(b[at+len(ins):], b[at:len(b)-len(ins)])
		copy(b[at:], ins)
	}
	return b, due
}
