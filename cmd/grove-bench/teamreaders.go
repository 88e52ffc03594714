package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/grove-sessions/grove/internal/corpusgen"
)

// The team step's readers: searches, leaves, paths and messages as new
// processes, SQLite beside PostgreSQL (see step_team.go).

// teamQueries are the team step's searches: teamQueries's common word,
// rare word, phrase, one and two Chinese characters and a prefix.
var teamQueries = []struct{ Name, Query string }{
	{"common word", corpusgen.CommonWord},
	{"rare word", corpusgen.RareWord},
	{"phrase", `"` + corpusgen.Phrase + `"`},
	{"1 Chinese character", string([]rune(corpusgen.ChineseWord)[:1])},
	{"2 Chinese characters", corpusgen.ChineseWord},
	{"prefix", "serial*"},
}

// teamNote says how much an answer held: hits, leaves, entries.
func teamNote(cmd string, out []byte) string {
	var v struct {
		Total    *int              `json:"total"`
		Hits     []json.RawMessage `json:"hits"`
		Leaves   []json.RawMessage `json:"leaves"`
		Path     []json.RawMessage `json:"path"`
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(out, &v) != nil {
		return ""
	}
	switch {
	case cmd == "search" && v.Total != nil:
		return fmt.Sprintf("%d hits", *v.Total)
	case cmd == "search":
		return fmt.Sprintf("%d hits shown", len(v.Hits))
	case cmd == "leaves":
		return fmt.Sprintf("%d leaves", len(v.Leaves))
	case cmd == "messages":
		return fmt.Sprintf("%d messages", len(v.Messages))
	case cmd == "path":
		return fmt.Sprintf("%d entries", len(v.Path))
	}
	return ""
}

// teamReaders times, as new processes run from an empty directory, the
// searches, leaves --workspace, path, messages and the path at depth
// TeamChain; for PostgreSQL every root (the chain's too) is renamed away
// meanwhile, so that no session file can be read.
func (s *suite) teamReaders(ctx context.Context, backends []teamBackend, srcs []teamSource, chainDir string) error {
	const sec = "team"
	cwd := filepath.Join(s.cfg.Work, "team-reader")
	os.RemoveAll(cwd)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		return err
	}
	// The workspace, session and leaf asked for: source 0's first
	// session's workspace and its deepest leaf.
	f0 := srcs[0].m.Files[0]
	ws := f0.Workspace
	roots := []string{chainDir}
	for _, src := range srcs {
		roots = append(roots, src.dir)
	}
	runs := max(s.cfg.Runs, min(s.cfg.SearchRuns, 10)) // --search-runs 1 for a quick check
	type reader struct {
		name string
		args []string
	}
	var readers []reader
	for _, q := range teamQueries {
		readers = append(readers, reader{name: "search " + q.Name + ": " + q.Query, args: []string{"search", "--limit", "20", "--", q.Query}})
	}
	res := map[string]map[string]Figure{}
	var passes []teamBackend
	for _, b := range backends {
		passes = append(passes, b)
		if b.pg {
			b.name, b.analyze = b.name+" after ANALYZE", true
			passes = append(passes, b)
		}
	}
	for _, b := range passes {
		if b.pg {
			if err := s.teamAnalyze(ctx, b); err != nil {
				return err
			}
		}
		if b.pg {
			for _, r := range roots {
				if err := os.Rename(r, r+".away"); err != nil {
					return err
				}
			}
		}
		restore := func() {
			if b.pg {
				for _, r := range roots {
					os.Rename(r+".away", r)
				}
			}
		}
		leaf, err := s.teamLeaf(ctx, b, cwd, f0.Session)
		if err != nil {
			restore()
			return err
		}
		all := append(readers,
			reader{name: "leaves --workspace " + ws, args: []string{"leaves", "--workspace", ws}},
			reader{name: "path SESSION LEAF", args: []string{"path", f0.Session, leaf}},
			reader{name: "messages SESSION", args: []string{"messages", f0.Session}},
			reader{name: fmt.Sprintf("path at depth %d", s.cfg.TeamChain), args: []string{"path", "team-chain", chainID(s.cfg.TeamChain)}})
		res[b.name] = map[string]Figure{}
		var searchAll []float64
		for _, rd := range all {
			var lat []float64
			var out []byte
			for i := 0; i < runs+1; i++ { // the first run warms the caches
				r, err := runProcDir(ctx, cwd, s.grove, append([]string{"--db", b.db, "--json"}, rd.args...))
				if err != nil {
					restore()
					return fmt.Errorf("%s: %w", b.name, err)
				}
				if i > 0 {
					lat = append(lat, ms(r.Wall))
				}
				out = r.Stdout
			}
			if strings.HasPrefix(rd.name, "search") {
				searchAll = append(searchAll, lat...)
			}
			f := figureOf(sec, b.name+": "+rd.name, "ms", lat)
			f.Note = teamNote(rd.args[0], out)
			if rd.args[0] == "path" && rd.args[2] == chainID(s.cfg.TeamChain) && f.Note != fmt.Sprintf("%d entries", s.cfg.TeamChain) {
				restore()
				return fmt.Errorf("%s: grove path team-chain %s: %s, want %d entries", b.name, rd.args[2], f.Note, s.cfg.TeamChain)
			}
			res[b.name][rd.name] = f
		}
		res[b.name]["all searches"] = figureOf(sec, b.name+": all searches", "ms", searchAll)
		restore()
	}
	names := []string{}
	for _, rd := range readers {
		names = append(names, rd.name)
	}
	names = append(names, "all searches", "leaves --workspace "+ws, "path SESSION LEAF", "messages SESSION", fmt.Sprintf("path at depth %d", s.cfg.TeamChain))
	for _, n := range names {
		l := res["SQLite"][n]
		s.add(l)
		for _, b := range passes[1:] {
			p := res[b.name][n]
			if l.Note != p.Note {
				// The same files, so the same answers: a difference is
				// printed, not hidden.
				fmt.Fprintf(s.log, "   %s: SQLite answers %q, %s %q\n", n, l.Note, b.name, p.Note)
				p.Note = "ANSWER DIFFERS from SQLite's: " + p.Note
			}
			if l.Median > 0 {
				r := p.Median / l.Median
				p.Note = strings.TrimPrefix(p.Note+fmt.Sprintf("; %.2f× SQLite's p50", r), "; ")
				key := "team/pg_over_sqlite/"
				if b.analyze {
					key = "team/pg_analyzed_over_sqlite/"
				}
				s.res.Ratios[key+n] = r
			}
			s.add(p)
		}
	}
	return nil
}

// teamAnalyze logs whether PostgreSQL's statistics of the tables exist
// (autovacuum analyzes a table some time after a bulk load) and, for the
// pass after ANALYZE, runs ANALYZE on the whole database.
func (s *suite) teamAnalyze(ctx context.Context, b teamBackend) error {
	db, err := sql.Open("pgx", b.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if b.analyze {
		start := time.Now()
		if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
			return fmt.Errorf("ANALYZE: %w", err)
		}
		fmt.Fprintf(s.log, "   ANALYZE took %.2f s\n", time.Since(start).Seconds())
		return nil
	}
	var analyzed, tables int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FILTER (WHERE last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL), count(*) FROM pg_stat_user_tables").Scan(&analyzed, &tables); err != nil {
		return err
	}
	fmt.Fprintf(s.log, "   before the PostgreSQL readers: %d of %d tables analyzed (by autovacuum)\n", analyzed, tables)
	return nil
}

// teamLeaf is the deepest leaf of session sid by `grove leaves`.
func (s *suite) teamLeaf(ctx context.Context, b teamBackend, cwd, sid string) (string, error) {
	r, err := runProcDir(ctx, cwd, s.grove, []string{"--db", b.db, "--json", "leaves", "--session", sid})
	if err != nil {
		return "", err
	}
	var out struct {
		Leaves []struct {
			ID    string
			Depth *int
		}
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil || len(out.Leaves) == 0 {
		return "", fmt.Errorf("%s: grove leaves --session %s: no leaf (%v)", b.name, sid, err)
	}
	sort.SliceStable(out.Leaves, func(i, j int) bool {
		di, dj := 0, 0
		if out.Leaves[i].Depth != nil {
			di = *out.Leaves[i].Depth
		}
		if out.Leaves[j].Depth != nil {
			dj = *out.Leaves[j].Depth
		}
		return di > dj
	})
	return out.Leaves[0].ID, nil
}
