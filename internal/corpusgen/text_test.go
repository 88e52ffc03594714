package corpusgen

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"unicode"
)

// TestCorpus_ChineseShare: the share of user and assistant messages with
// prose that are written in Chinese is close to Options.ChineseShare.
func TestCorpus_ChineseShare(t *testing.T) {
	dir, m := mustShared(t)
	var all, zh int
	for _, f := range m.Files {
		for _, n := range mustEntries(t, dir, f) {
			var e struct {
				Message struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(n.raw, &e) != nil || (e.Message.Role != "user" && e.Message.Role != "assistant") {
				continue
			}
			var s string
			if json.Unmarshal(e.Message.Content, &s) != nil { // an array of blocks
				var blocks []struct{ Type, Text, Thinking string }
				json.Unmarshal(e.Message.Content, &blocks)
				for _, b := range blocks {
					s += b.Text + b.Thinking
				}
			}
			if s == "" {
				continue // tool calls only
			}
			all++
			if bytes.ContainsFunc([]byte(s), func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
				zh++
			}
		}
	}
	got := float64(zh) / float64(all)
	if math.Abs(got-sharedOptions.ChineseShare) > 0.05 {
		t.Errorf("%d of %d messages in Chinese (%.3f), want %.2f ± 0.05", zh, all, got, sharedOptions.ChineseShare)
	}
}

// TestCorpus_Markers: the manifest counts exactly the committed entries
// that hold each marker, the counts are near entries/every, and "refused"
// occurs only inside Phrase.
func TestCorpus_Markers(t *testing.T) {
	dir, m := mustShared(t)
	var total [nMarkers]int
	refused, common, entries := 0, 0, 0
	for _, f := range m.Files {
		var got [nMarkers]int
		for _, n := range mustEntries(t, dir, f) {
			entries++
			for i, w := range MarkerWords {
				if bytes.Contains(n.raw, []byte(w)) {
					got[i]++
				}
			}
			refused += bytes.Count(n.raw, []byte("refused")) - bytes.Count(n.raw, []byte(Phrase))
			if bytes.Contains(n.raw, []byte(" "+CommonWord+" ")) {
				common++
			}
		}
		if got != f.Markers {
			t.Errorf("%s: entries with markers %v, manifest says %v", f.Path, got, f.Markers)
		}
		for i := range got {
			total[i] += got[i]
		}
	}
	for i, mk := range m.Markers {
		if mk.Entries != total[i] || mk.Word != MarkerWords[i] {
			t.Errorf("manifest marker %+v, counted %d", mk, total[i])
		}
		want := float64(entries) / float64(markerEvery[i])
		if d := math.Abs(float64(total[i]) - want); d > 3*math.Sqrt(want)+3 {
			t.Errorf("%q in %d of %d entries, want about %.1f", MarkerWords[i], total[i], entries, want)
		}
	}
	if refused != 0 {
		t.Errorf(`"refused" occurs %d times outside %q`, refused, Phrase)
	}
	if common < entries/8 { // about a fifth: tool calls and code hold few prose words
		t.Errorf("%q in %d of %d entries, want it common", CommonWord, common, entries)
	}
}

// TestMarkers_Rate: over a million entries each marker is due exactly
// entries/every times, whatever the starting offset.
func TestMarkers_Rate(t *testing.T) {
	mk := newMarkers(newRNG(1))
	var got [nMarkers]int
	for range 1_000_000 {
		mk.tick()
		for i := range nMarkers {
			if mk.due&(1<<i) != 0 {
				got[i]++
			}
		}
		mk.due = 0
	}
	for i, every := range markerEvery {
		if want := 1_000_000 / every; got[i] != want {
			t.Errorf("%q due %d times in 1e6 entries, want %d", MarkerWords[i], got[i], want)
		}
	}
}

// TestMarkers_Splice: a spliced marker stands as a word of its own and
// never splits a UTF-8 sequence.
func TestMarkers_Splice(t *testing.T) {
	r := newRNG(3)
	for _, text := range []string{"", "word", "two words here", "索引查询数据函数", "mixed 索引 text"} {
		for range 50 {
			mk := markers{due: 1<<nMarkers - 1}
			b, got := mk.splice(r, []byte("prefix|"+text), len("prefix|"))
			if got != 1<<nMarkers-1 || !bytes.HasPrefix(b, []byte("prefix|")) {
				t.Fatalf("splice(%q) = %q, markers %b", text, b, got)
			}
			for _, w := range MarkerWords {
				if !bytes.Contains(b, []byte(" "+w+" ")) {
					t.Errorf("splice(%q) = %q: no %q", text, b, w)
				}
			}
			if !json.Valid(appendString(nil, b)) || !bytes.Equal(bytes.ToValidUTF8(b, nil), b) {
				t.Errorf("splice(%q) = %q: not valid UTF-8", text, b)
			}
		}
	}
}

// TestAppendString: the hand escaper agrees with encoding/json on what the
// string is.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `quo"te`, `back\slash`, "tab\tnl\ncr\r", "\x00\x1b[31m", "索引 ✓ 🌳", "\u2028"} {
		var back string
		if err := json.Unmarshal(appendString(nil, s), &back); err != nil || back != s {
			t.Errorf("appendString(%q) = %s, decodes to %q (%v)", s, appendString(nil, s), back, err)
		}
	}
}
