package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/grove-sessions/grove/internal/corpusgen"
	"github.com/grove-sessions/grove/internal/pgcluster"
)

// The team step (SPEC §10): a generated team corpus of
// TeamSources roots of TeamSessions sessions each, indexed into SQLite and
// into a throwaway PostgreSQL cluster side by side, by one writer and by
// TeamWriters writers at once, then read from a fifth process whose
// working directory holds no session file.

// teamBackend is one of the two indexes the team step measures.
type teamBackend struct {
	name string // "SQLite" or "PostgreSQL"
	db   string // the --db value: an index file or a postgres:// URL
	pg   bool
	// analyze: the readers run once more after ANALYZE (a cold index
	// leaves PostgreSQL's planner without statistics until autovacuum's
	// analyze comes round).
	analyze bool
}

// teamSource is one source of the team corpus: its own root directory.
type teamSource struct {
	name string // --source
	dir  string // --root
	m    *corpusgen.Manifest
}

// teamStep measures the team corpus on both backends; without
// PostgreSQL's binaries it is skipped with the reason.
func (s *suite) teamStep(ctx context.Context) error {
	const sec = "team"
	bin, err := pgcluster.BinDir()
	if err != nil {
		err = fmt.Errorf("%v: the team step is skipped", err)
		s.skip(sec, "SQLite and PostgreSQL side by side", err.Error())
		fmt.Fprintf(s.log, "   skipped: %v\n", err)
		return nil
	}
	srcs, total, err := s.teamCorpus(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.log, "   team corpus: %d sources × %d sessions, %s\n", len(srcs), s.cfg.TeamSessions, mb(total))
	// The server is internal/pgtest's: a Unix socket and no TCP, trust
	// authentication, and fsync, synchronous_commit and full_page_writes
	// off, which flatters PostgreSQL's write figures.
	pg, err := pgcluster.Start(bin, "grove-bench-pg-")
	if err != nil {
		return err
	}
	defer pg.Stop()
	backends := []teamBackend{
		{name: "SQLite", db: filepath.Join(s.cfg.Work, "team.db")},
		{name: "PostgreSQL", db: pg.URL("team"), pg: true},
	}
	// An empty index for each cold index: PostgreSQL's database made
	// again, SQLite's file removed (the writers that start at once make
	// it together).
	reset := func(b teamBackend) error {
		if b.pg {
			return pg.Create("team", true)
		}
		removeDB(b.db)
		return nil
	}
	// Cold index: one writer, then TeamWriters at once; runs alternate
	// the backends so that a change in the machine's load reaches both.
	writers := []int{1, s.cfg.TeamWriters}
	mbps := map[string][]float64{}
	for _, w := range writers {
		for i := 0; i < s.cfg.Runs; i++ {
			for _, b := range backends {
				if err := reset(b); err != nil {
					return err
				}
				wall, err := s.teamIndex(ctx, b, srcs, w)
				if err != nil {
					return fmt.Errorf("%s, %d writers: %w", b.name, w, err)
				}
				if err := s.teamCheckSessions(ctx, b, srcs); err != nil {
					return fmt.Errorf("%s, %d writers: %w", b.name, w, err)
				}
				v := float64(total) / 1e6 / wall.Seconds()
				key := fmt.Sprintf("%s/%d", b.name, w)
				mbps[key] = append(mbps[key], v)
				fmt.Fprintf(s.log, "   %s, %d writer(s), run %d: %.2f s, %.1f MB/s; sessions per source checked\n", b.name, w, i+1, wall.Seconds(), v)
			}
		}
	}
	for _, w := range writers {
		var fs [2]Figure
		for j, b := range backends {
			fs[j] = figureOf(sec, fmt.Sprintf("%s: cold index, %d writer(s)", b.name, w), "MB/s", mbps[fmt.Sprintf("%s/%d", b.name, w)])
		}
		if fs[0].Median > 0 {
			r := fs[1].Median / fs[0].Median
			fs[1].Note = fmt.Sprintf("%.2f× SQLite's MB/s", r)
			s.res.Ratios[fmt.Sprintf("team/pg_over_sqlite/index_mbps/%d", w)] = r
		}
		fs[0].Note = fmt.Sprintf("%s of JSONL in %d roots", mb(total), len(srcs))
		s.add(fs[0])
		s.add(fs[1])
	}
	for _, b := range backends {
		one, many := s.byName[fmt.Sprintf("%s/%s: cold index, 1 writer(s)", sec, b.name)], s.byName[fmt.Sprintf("%s/%s: cold index, %d writer(s)", sec, b.name, s.cfg.TeamWriters)]
		if one.Median > 0 {
			s.res.Ratios[fmt.Sprintf("team/%s/writers_%d_over_1", strings.ToLower(b.name), s.cfg.TeamWriters)] = many.Median / one.Median
		}
	}
	// Size, as the last cold index (TeamWriters at once) left it.
	if err := s.teamSizes(ctx, backends, pg, total); err != nil {
		return err
	}
	// The chain session of the path figure, its own source and root.
	chainDir := filepath.Join(s.cfg.Work, "team-chain")
	os.RemoveAll(chainDir)
	if err := os.MkdirAll(chainDir, 0o755); err != nil {
		return err
	}
	if err := writeChain(filepath.Join(chainDir, "team-chain.jsonl"), s.cfg.TeamChain); err != nil {
		return err
	}
	for _, b := range backends {
		if _, err := runProc(ctx, nil, s.grove, []string{"--db", b.db, "--json", "index", "--source", "chain", "--root", chainDir}); err != nil {
			return err
		}
	}
	if err := s.teamReaders(ctx, backends, srcs, chainDir); err != nil {
		return err
	}
	return s.teamRefresh(ctx, backends, srcs[0])
}

// teamCorpus generates (or reuses) the sources' corpora under WORK, one
// directory per source, seeds seed*1000+1 ... and returns them and their
// JSONL bytes in all.
func (s *suite) teamCorpus(ctx context.Context) ([]teamSource, int64, error) {
	var srcs []teamSource
	var total int64
	for i := 0; i < s.cfg.TeamSources; i++ {
		o := s.auxOptions()
		o.Seed = s.cfg.Corpus.Seed*1000 + int64(i) + 1
		o.Files, o.MaxSession = s.cfg.TeamSessions, s.cfg.TeamSessionMax
		o.Size = int64(o.Files) * 2 * o.MaxSession // Files is the limit that binds
		o.Workspaces = 5
		// Every file a session: a damaged file may hold no header, and
		// the per-source count check counts sessions.
		o.DamageRate = 0
		name := fmt.Sprintf("team-%d-%d-%d-seed%d", s.cfg.TeamSources, i, s.cfg.TeamSessions, o.Seed)
		dir, m, err := s.auxCorpus(ctx, name, o, "--team-sessions")
		if err != nil {
			return nil, 0, err
		}
		if len(m.Files) != s.cfg.TeamSessions {
			return nil, 0, fmt.Errorf("%s: %d files generated, want %d", dir, len(m.Files), s.cfg.TeamSessions)
		}
		srcs = append(srcs, teamSource{name: fmt.Sprintf("team-%02d", i), dir: dir, m: m})
		total += m.Bytes
	}
	return srcs, total, nil
}

// teamIndex indexes every source into b with writers lanes at once: lane
// k runs `grove index --source S --root R` for sources k, k+writers, ...
// one after another (a grove process takes one --source). It returns the
// wall time until the last lane is done.
func (s *suite) teamIndex(ctx context.Context, b teamBackend, srcs []teamSource, writers int) (time.Duration, error) {
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	start := time.Now()
	for k := 0; k < writers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for i := k; i < len(srcs); i += writers {
				r, err := runProc(ctx, nil, s.grove, []string{"--db", b.db, "--json", "index", "--source", srcs[i].name, "--root", srcs[i].dir})
				if err == nil {
					var sum indexSummary
					if err = json.Unmarshal(r.Stdout, &sum); err == nil && sum.Files != len(srcs[i].m.Files) {
						err = fmt.Errorf("grove index --source %s saw %d files, the manifest lists %d", srcs[i].name, sum.Files, len(srcs[i].m.Files))
					}
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}(k)
	}
	wg.Wait()
	wall := time.Since(start)
	close(errc)
	for err := range errc {
		return wall, err
	}
	return wall, nil
}

// teamCheckSessions is the correctness check of the concurrent writers:
// `grove sessions --json` lists, for each source, exactly as many
// sessions as its corpus has files.
func (s *suite) teamCheckSessions(ctx context.Context, b teamBackend, srcs []teamSource) error {
	r, err := runProc(ctx, nil, s.grove, []string{"--db", b.db, "--json", "sessions"})
	if err != nil {
		return err
	}
	var out struct {
		Sessions []struct{ Source string }
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		return fmt.Errorf("grove sessions output: %w", err)
	}
	got := map[string]int{}
	for _, x := range out.Sessions {
		got[x.Source]++
	}
	for _, src := range srcs {
		if got[src.name] != len(src.m.Files) {
			return fmt.Errorf("grove sessions lists %d sessions of source %s, %d were written", got[src.name], src.name, len(src.m.Files))
		}
	}
	if len(out.Sessions) != len(srcs)*s.cfg.TeamSessions {
		return fmt.Errorf("grove sessions lists %d sessions, %d were written", len(out.Sessions), len(srcs)*s.cfg.TeamSessions)
	}
	return nil
}

// teamSizes adds each index's size ÷ the JSONL size: SQLite's file and
// WAL; PostgreSQL's pg_database_size, and that less file_bytes (its
// pg_total_relation_size: the committed bytes kept for readers without
// the files).
func (s *suite) teamSizes(ctx context.Context, backends []teamBackend, pg *pgcluster.Cluster, total int64) error {
	one := func(name string, size int64, note string) {
		r := float64(size) / float64(total)
		s.add(Figure{Section: "team", Name: name, Median: r, Min: r, Max: r, Unit: "×", Runs: 1,
			Note: fmt.Sprintf("%s for %s JSONL%s", mb(size), mb(total), note)})
	}
	for _, b := range backends {
		if !b.pg {
			size := fileSize(b.db, b.db+"-wal")
			one("SQLite: index size ÷ JSONL size", size, "")
			s.res.Ratios["team/sqlite/size_over_jsonl"] = float64(size) / float64(total)
			continue
		}
		db, err := sql.Open("pgx", b.db)
		if err != nil {
			return err
		}
		var all, fb, empty int64
		err = db.QueryRowContext(ctx, "SELECT pg_database_size(current_database()), pg_total_relation_size('file_bytes'), pg_database_size('template0')").Scan(&all, &fb, &empty)
		db.Close()
		if err != nil {
			return fmt.Errorf("PostgreSQL sizes: %w", err)
		}
		one("PostgreSQL: database size ÷ JSONL size", all, fmt.Sprintf(", file_bytes %s of it; an empty database (template0) is %s", mb(fb), mb(empty)))
		one("PostgreSQL: database size without file_bytes ÷ JSONL size", all-fb, "")
		s.res.Ratios["team/pg/size_over_jsonl"] = float64(all) / float64(total)
		s.res.Ratios["team/pg/size_without_file_bytes_over_jsonl"] = float64(all-fb) / float64(total)
	}
	return nil
}

// teamRefresh appends one entry line to src's largest healthy pi session
// and times `grove index --source S --root R` picking it up, on each
// backend in turn, Runs times; then the file is cut back to its length
// and mtime.
func (s *suite) teamRefresh(ctx context.Context, backends []teamBackend, src teamSource) error {
	var big corpusgen.File
	for _, f := range src.m.Files {
		if f.Dialect == "pi" && f.Damage == "" && f.Bytes > big.Bytes {
			big = f
		}
	}
	if big.Path == "" {
		s.skip("team", "refresh after an append", "source "+src.name+" has no healthy pi session")
		return nil
	}
	file := filepath.Join(src.dir, filepath.FromSlash(big.Path))
	parent, _, restore, err := appendable(file)
	if err != nil {
		return err
	}
	defer restore()
	lat := map[string][]float64{}
	for i := 0; i < s.cfg.Runs; i++ {
		id := fmt.Sprintf("team%03d", i)
		line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2027-01-01T00:00:%02d.000Z","message":{"role":"user","content":%q}}`+"\n",
			id, parent, i%60, strings.Repeat("appended by grove-bench ", 10))
		if err := appendLine(file, line); err != nil {
			return err
		}
		parent = id
		for _, b := range backends {
			r, err := runProc(ctx, nil, s.grove, []string{"--db", b.db, "--json", "index", "--source", src.name, "--root", src.dir})
			if err != nil {
				return err
			}
			var sum indexSummary
			if err := json.Unmarshal(r.Stdout, &sum); err != nil || sum.Indexed != 1 {
				return fmt.Errorf("%s: the refresh after an append indexed %d files (%v), want 1", b.name, sum.Indexed, err)
			}
			lat[b.name] = append(lat[b.name], ms(r.Wall))
		}
	}
	l := figureOf("team", "SQLite: refresh after a one-line append", "ms", lat["SQLite"])
	p := figureOf("team", "PostgreSQL: refresh after a one-line append", "ms", lat["PostgreSQL"])
	l.Note = fmt.Sprintf("%s of %s (%.1f KB), a root of %d files", big.Path, src.name, float64(big.Bytes)/1e3, len(src.m.Files))
	if l.Median > 0 {
		p.Note = fmt.Sprintf("%.2f× SQLite's", p.Median/l.Median)
		s.res.Ratios["team/pg_over_sqlite/refresh"] = p.Median / l.Median
	}
	s.add(l)
	s.add(p)
	return nil
}
