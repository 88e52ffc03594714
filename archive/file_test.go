package archive_test

import (
	"context"
	"testing"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// The demo messages log has entries on lines 1-4, 6 and 7, a bad line 5
// and an unterminated tail on line 8.
func TestReadMessagesLog(t *testing.T) {
	path := testutil.Testdata(t, "messages/session.jsonl")
	for _, tc := range []struct {
		leaf     string
		wantLeaf string
		wantMsgs int
		wantCode errs.Code
	}{
		{"", "L7", 6, ""},
		{"L3", "L3", 3, ""},
		{"L1", "L1", 1, ""},
		{"L5", "", 0, errs.CodeUnknownEntry}, // the bad line is no entry
	} {
		log, err := archive.ReadMessagesLog(context.Background(), path, tc.leaf)
		if tc.wantCode != "" {
			if errs.CodeOf(err) != tc.wantCode {
				t.Errorf("ReadMessagesLog(%q) error = %v, want %s", tc.leaf, err, tc.wantCode)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ReadMessagesLog(%q): %v", tc.leaf, err)
		}
		if log.SessionID != "session" || log.Leaf != tc.wantLeaf || len(log.Messages) != tc.wantMsgs {
			t.Errorf("ReadMessagesLog(%q) = id %s leaf %s, %d messages; want session, %s, %d", tc.leaf, log.SessionID, log.Leaf, len(log.Messages), tc.wantLeaf, tc.wantMsgs)
		}
		var codes []errs.Code
		for _, p := range log.Problems {
			codes = append(codes, p.Code)
		}
		if len(codes) != 2 || codes[0] != errs.CodeBadLine || codes[1] != errs.CodeUnterminatedTail {
			t.Errorf("ReadMessagesLog(%q) problems = %v, want [bad_line unterminated_tail]", tc.leaf, codes)
		}
		// The file read whole gives the same path and messages.
		p, c, err := archive.FileContext(path, tc.leaf)
		if err != nil {
			t.Fatalf("FileContext(%q): %v", tc.leaf, err)
		}
		if p.Leaf != tc.wantLeaf || len(p.Entries) != tc.wantMsgs || len(c.Messages) != tc.wantMsgs || p.Session.Dialect != archive.Messages {
			t.Errorf("FileContext(%q) = leaf %s, %d entries, %d messages, dialect %s; want %s, %d, %d, messages", tc.leaf, p.Leaf, len(p.Entries), len(c.Messages), p.Session.Dialect, tc.wantLeaf, tc.wantMsgs, tc.wantMsgs)
		}
		for i, m := range log.Messages {
			if string(m) != string(c.Messages[i]) {
				t.Errorf("ReadMessagesLog(%q) message %d = %s, FileContext's %s", tc.leaf, i, m, c.Messages[i])
			}
		}
	}
}

func TestFileDialect(t *testing.T) {
	for _, tc := range []struct{ rel, want string }{
		{"messages/session.jsonl", "messages"},
		{"pi/v3-tree.jsonl", "pi"},
		{"claude/7f3c2a10-0000-4000-8000-000000000001.jsonl", "claude"},
		{"codex/rollout-2025-05-01T10-00-00-5e1b7c2a-1111-4222-8333-944455556666.jsonl", "codex"},
	} {
		d, ok := archive.FileDialect(context.Background(), testutil.Testdata(t, tc.rel))
		if !ok || string(d) != tc.want {
			t.Errorf("FileDialect(%s) = %s, %v; want %s, true", tc.rel, d, ok, tc.want)
		}
	}
	if _, ok := archive.FileDialect(context.Background(), t.TempDir()); ok {
		t.Errorf("FileDialect(a directory) = ok, want not ok")
	}
}
