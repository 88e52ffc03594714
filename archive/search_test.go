package archive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/errs"
	"github.com/grove-sessions/grove/internal/testutil"
)

// piLine builds one pi version 3 entry line; extra are more members.
func piLine(typ, id, parent, ts string, extra ...string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":%q`, typ, id, p, ts) + strings.Join(append([]string{""}, extra...), ",") + "}\n"
}

func msg(role, content string) string {
	return `"message":{"role":"` + role + `","content":` + content + `}`
}

func text(s string) string {
	b, _ := json.Marshal(s)
	return `[{"type":"text","text":` + string(b) + `}]`
}

// searchCorpus writes four sessions: shop (English, a branch, a label and a
// name), its fork, shop-admin (a workspace whose name extends shop's), and
// notes (Chinese). It returns the index.
func searchCorpus(t *testing.T) *archive.Archive {
	t.Helper()
	dir := t.TempDir()
	shopHeader := `{"type":"session","version":3,"id":"5a0p0001-shop","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/home/ana/src/shop"}` + "\n"
	u1 := piLine("message", "aa000001", "", "2026-01-05T10:00:01.000Z", msg("user", `"The parser fails on YAML anchors"`))
	a1 := piLine("message", "aa000002", "aa000001", "2026-01-05T10:00:02.000Z", `"message":{"role":"assistant","content":[{"type":"thinking","thinking":"maybe the Lexer"},{"type":"text","text":"Let me read the parser"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"src/parser.go"}}]}`)
	t1 := piLine("message", "aa000003", "aa000002", "2026-01-05T10:00:03.000Z", `"message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":`+text("func Parse() error { return errConnectionRefused }")+`,"isError":false}`)
	a2 := piLine("message", "aa000004", "aa000001", "2026-01-05T10:00:04.000Z", msg("assistant", text("Café au lait approach")))
	u2 := piLine("message", "aa000005", "aa000003", "2026-01-05T10:00:05.000Z", msg("user", `"connection refused again"`))
	lb := piLine("label", "aa000006", "aa000005", "2026-01-05T10:00:06.000Z", `"targetId":"aa000001"`, `"label":"yaml-bug"`)
	nm := piLine("session_info", "aa000007", "aa000006", "2026-01-05T10:00:07.000Z", `"name":"Parser rescue"`)
	shop := testutil.MustWriteFile(t, dir, "shop/s1.jsonl", []byte(shopHeader+u1+a1+t1+a2+u2+lb+nm))

	forkHeader := `{"type":"session","version":3,"id":"f0rk0002-shop","timestamp":"2026-01-06T09:00:00.000Z","cwd":"/home/ana/src/shop","parentSession":"` + shop + `"}` + "\n"
	f1 := piLine("message", "bb000001", "aa000002", "2026-01-06T09:00:01.000Z", msg("user", `"fork continues with the lexer"`))
	testutil.MustWriteFile(t, dir, "shop/s2.jsonl", []byte(forkHeader+u1+a1+f1))

	adminHeader := `{"type":"session","version":3,"id":"ad0m0003-admin","timestamp":"2026-02-01T08:00:00.000Z","cwd":"/home/ana/src/shop-admin"}` + "\n"
	b1 := piLine("message", "cc000001", "", "2026-02-01T08:00:01.000Z", msg("user", `"refused connection to the database"`))
	b2 := piLine("message", "cc000002", "cc000001", "2026-02-01T08:00:02.000Z", `"message":{"role":"bashExecution","command":"make test","output":"FAIL parser_test.go","exitCode":1,"cancelled":false,"truncated":false}`)
	testutil.MustWriteFile(t, dir, "admin/s3.jsonl", []byte(adminHeader+b1+b2))

	notesHeader := `{"type":"session","version":3,"id":"n0te0004-notes","timestamp":"2026-03-01T08:00:00.000Z","cwd":"/home/bo/notes"}` + "\n"
	c1 := piLine("message", "dd000001", "", "2026-03-01T08:00:01.000Z", msg("user", `"我们的数据库索引坏了"`))
	c2 := piLine("message", "dd000002", "dd000001", "2026-03-01T08:00:02.000Z", msg("assistant", text("重建索引就好了。数据没有丢失。")))
	c3 := piLine("message", "dd000003", "dd000002", "2026-03-01T08:00:03.000Z", msg("user", `"谢谢"`))
	testutil.MustWriteFile(t, dir, "notes/s4.jsonl", []byte(notesHeader+c1+c2+c3))

	a := mustOpenArchive(t, filepath.Join(dir, "index.db"))
	if sum, err := a.Index(context.Background(), archive.IndexOptions{Roots: []string{dir}}); err != nil || sum.Indexed != 4 {
		t.Fatalf("Index = %+v, %v", sum, err)
	}
	return a
}

// hitSet renders hits as "session-prefix/id" sorted, with also_in counts.
func hitSet(res *archive.SearchResult) string {
	var out []string
	for _, h := range res.Hits {
		s := h.SessionID[:4] + "/" + h.EntryID
		if len(h.AlsoIn) > 0 {
			s += "+" + strings.Join(h.AlsoIn, "+")
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestSearch_HitSets(t *testing.T) {
	a := searchCorpus(t)
	ctx := context.Background()
	day := func(s string) *time.Time {
		tm, _ := time.Parse(time.RFC3339, s)
		return &tm
	}
	tests := []struct {
		name string
		o    archive.SearchOptions
		want string
	}{
		{"word", archive.SearchOptions{Query: "parser"}, "5a0p/aa000001+f0rk0002-shop 5a0p/aa000002+f0rk0002-shop 5a0p/aa000007 ad0m/cc000002"},
		{"two words ANDed", archive.SearchOptions{Query: "parser yaml"}, "5a0p/aa000001+f0rk0002-shop"},
		{"phrase keeps order", archive.SearchOptions{Query: `"connection refused"`}, "5a0p/aa000005"},
		{"words in any order", archive.SearchOptions{Query: "connection refused"}, "5a0p/aa000005 ad0m/cc000001"},
		{"identifier parts", archive.SearchOptions{Query: "parser_test"}, "ad0m/cc000002"},
		{"prefix", archive.SearchOptions{Query: "lex*"}, "5a0p/aa000002+f0rk0002-shop f0rk/bb000001"},
		{"exclusion", archive.SearchOptions{Query: "parser -yaml"}, "5a0p/aa000002+f0rk0002-shop 5a0p/aa000007 ad0m/cc000002"},
		{"OR", archive.SearchOptions{Query: "yaml OR 谢谢"}, "5a0p/aa000001+f0rk0002-shop 5a0p/aa000006 n0te/dd000003"},
		{"accents and case", archive.SearchOptions{Query: "CAFE"}, "5a0p/aa000004"},
		{"tool call arguments", archive.SearchOptions{Query: "src/parser.go"}, "5a0p/aa000002+f0rk0002-shop"},
		{"label text", archive.SearchOptions{Query: "yaml-bug"}, "5a0p/aa000006"},
		{"two Chinese characters", archive.SearchOptions{Query: "数据"}, "n0te/dd000001 n0te/dd000002"},
		{"one Chinese character", archive.SearchOptions{Query: "索"}, "n0te/dd000001 n0te/dd000002"},
		{"Chinese substring across words", archive.SearchOptions{Query: "据库索"}, "n0te/dd000001"},
		{"workspace exact", archive.SearchOptions{Query: "parser", Workspace: "/home/ana/src/shop"}, "5a0p/aa000001+f0rk0002-shop 5a0p/aa000002+f0rk0002-shop 5a0p/aa000007"},
		{"workspace prefix", archive.SearchOptions{Query: "refused", Workspace: "/home/ana/"}, "5a0p/aa000005 ad0m/cc000001"},
		{"session", archive.SearchOptions{Query: "lexer", Session: "f0rk"}, "f0rk/aa000002+5a0p0001-shop f0rk/bb000001"},
		{"role", archive.SearchOptions{Query: "parser", Roles: []string{"user"}}, "5a0p/aa000001+f0rk0002-shop"},
		{"type", archive.SearchOptions{Query: "parser", Types: []string{"session_info"}}, "5a0p/aa000007"},
		{"since", archive.SearchOptions{Query: "parser OR 数据", Since: day("2026-02-01T00:00:00Z")}, "ad0m/cc000002 n0te/dd000001 n0te/dd000002"},
		{"until", archive.SearchOptions{Query: "parser", Until: day("2026-01-05T10:00:02Z")}, "5a0p/aa000001+f0rk0002-shop"},
		{"active branch only", archive.SearchOptions{Query: "approach OR refused", Active: true, Workspace: "/home/ana/src/shop"}, "5a0p/aa000005"},
		{"all branches", archive.SearchOptions{Query: "approach OR refused", Workspace: "/home/ana/src/shop"}, "5a0p/aa000004 5a0p/aa000005"},
		{"no dedupe", archive.SearchOptions{Query: "yaml", NoDedupe: true}, "5a0p/aa000001 5a0p/aa000006 f0rk/aa000001"},
		{"entry id", archive.SearchOptions{Query: "cc000002"}, "ad0m/cc000002"},
		{"unique entry id prefix", archive.SearchOptions{Query: "bb00"}, "f0rk/bb000001"},
		{"shared entry id prefix finds nothing", archive.SearchOptions{Query: "dd00000"}, ""},
		{"session id prefix", archive.SearchOptions{Query: "n0te"}, "n0te/dd000003"},
		{"no hit", archive.SearchOptions{Query: "zanzibar"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := a.Search(ctx, tt.o)
			if err != nil {
				t.Fatalf("Search(%+v) = %v", tt.o, err)
			}
			if got := hitSet(res); got != tt.want {
				t.Errorf("Search(%q) = %s\nwant %s", tt.o.Query, got, tt.want)
			}
			if !res.Exact || res.Total != len(res.Hits) {
				t.Errorf("Search(%q) total %d exact %v, want %d exact", tt.o.Query, res.Total, res.Exact, len(res.Hits))
			}
		})
	}
}

func TestSearch_SnippetsOrderAndPages(t *testing.T) {
	a := searchCorpus(t)
	ctx := context.Background()
	res, err := a.Search(ctx, archive.SearchOptions{Query: "parser"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, h := range res.Hits {
		order = append(order, h.EntryID)
	}
	if got := strings.Join(order, " "); got != "cc000002 aa000007 aa000002 aa000001" {
		t.Errorf("newest first = %s", got)
	}
	if s := res.Hits[3].Snippet; s != "The [[parser]] fails on YAML anchors" {
		t.Errorf("snippet = %q", s)
	}
	if h := res.Hits[3]; h.SessionID != "5a0p0001-shop" {
		t.Errorf("a fork copy is shown from the session created first; got %s", h.SessionID)
	}
	page, err := a.Search(ctx, archive.SearchOptions{Query: "parser", Limit: 2, Offset: 1})
	if err != nil || len(page.Hits) != 2 || page.Hits[0].EntryID != "aa000007" || page.Total != 4 {
		t.Fatalf("page 2 = %+v, %v", page, err)
	}
	rel, err := a.Search(ctx, archive.SearchOptions{Query: "parser", Sort: "relevance"})
	if err != nil || hitSet(rel) != hitSet(res) {
		t.Fatalf("relevance hits %s, want the same set as %s (%v)", hitSet(rel), hitSet(res), err)
	}
}

func TestSearch_Errors(t *testing.T) {
	a := searchCorpus(t)
	ctx := context.Background()
	for _, q := range []string{"", "*", "-parser", `"`, ":", "\xff\xfe"} {
		if _, err := a.Search(ctx, archive.SearchOptions{Query: q}); errs.CodeOf(err) != errs.CodeBadQuery {
			t.Errorf("Search(%q) = %v, want bad_query", q, err)
		}
	}
	for _, q := range []string{"NEAR(", strings.Repeat("parser", 2000), `"text:" (x) NEAR(a b) ^c {d}`, "a\x00b", strings.Repeat("数", 1000)} {
		if _, err := a.Search(ctx, archive.SearchOptions{Query: q}); err != nil && errs.CodeOf(err) != errs.CodeBadQuery {
			t.Errorf("Search(%.30q) = %v, want an answer or bad_query", q, err)
		}
	}
	if _, err := a.Search(ctx, archive.SearchOptions{Query: "x", Session: "nope"}); errs.CodeOf(err) != errs.CodeUnknownSession {
		t.Errorf("unknown session: %v", err)
	}
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in       string
		endOfDay bool
		want     string
	}{
		{"2026-01-05", false, "2026-01-05T00:00:00Z"},
		{"2026-01-05", true, "2026-01-06T00:00:00Z"},
		{"2026-01-05T14:00:00+02:00", false, "2026-01-05T12:00:00Z"},
		{"7d", false, "2026-11-23T12:00:00Z"},
		{"12h", false, "2026-11-30T00:00:00Z"},
		{"2w", false, "2026-11-16T12:00:00Z"},
		{"30m", false, "2026-11-30T11:30:00Z"},
	}
	for _, tt := range tests {
		got, err := archive.ParseWhen(tt.in, now, tt.endOfDay)
		if err != nil || got.UTC().Format(time.RFC3339) != tt.want {
			t.Errorf("ParseWhen(%q, %v) = %v, %v; want %s", tt.in, tt.endOfDay, got, err, tt.want)
		}
	}
	for _, bad := range []string{"yesterday", "7x", "2026-13-01", ""} {
		if _, err := archive.ParseWhen(bad, now, false); err == nil {
			t.Errorf("ParseWhen(%q) = nil error", bad)
		}
	}
}

// A session id that several files hold (copies of one file) finds each
// of those sessions, each named by its file (AmbiguousID: the commands to
// open it name the file); a prefix of the id finds them too.
func TestSearch_SharedSessionIDFindsEverySession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"a.jsonl", "b.jsonl", "c.jsonl"} {
		testutil.MustCopy(t, testutil.Testdata(t, "pi/v3-tree.jsonl"), dir, name)
	}
	a := mustOpenArchive(t, filepath.Join(t.TempDir(), "index.db"))
	if _, err := a.Index(ctx, archive.IndexOptions{Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	const id = "5b7e2c14-9a3d-4f60-b8e1-2d4c6a8f0e13"
	for _, q := range []string{id, "5b7e2c14"} {
		res, err := a.Search(ctx, archive.SearchOptions{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range res.Hits {
			if h.Type == "session" {
				paths = append(paths, filepath.Base(h.Path))
				if !h.AmbiguousID || h.AlsoInFiles == nil {
					t.Errorf("search %s: the session hit of %s has AmbiguousID %v, AlsoInFiles %v; want its file to name it", q, h.Path, h.AmbiguousID, h.AlsoInFiles)
				}
			}
		}
		if got := strings.Join(paths, " "); got != "a.jsonl b.jsonl c.jsonl" {
			t.Errorf("search %s: session hits %q, want the three files that hold it", q, got)
		}
	}
}
