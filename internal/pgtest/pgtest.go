// Package pgtest starts a throwaway PostgreSQL cluster for tests (SPEC §10):
// initdb in a temporary directory, the server listening only on a Unix
// socket in that directory (no TCP), fsync off, trust authentication. One
// cluster serves a whole test binary and each test gets a database of its
// own, dropped when the test ends.
//
// A package that uses it calls Main from its TestMain, which stops the
// cluster and removes its directory after the tests:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// DB skips the test, saying why, when PostgreSQL's binaries are missing
// (Debian: `apt-get install postgresql`; .ci/run does that). GROVE_PG_BIN
// names their directory when it is not /usr/lib/postgresql/*/bin or PATH.
// As root, initdb and the server run as the user postgres (initdb refuses
// root).
package pgtest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"

	"github.com/grove-sessions/grove/internal/pgcluster"
)

// cluster is the running server of this test binary.
type cluster struct {
	c       *pgcluster.Cluster
	skipMsg string // set when no cluster can be started
	err     error  // set when starting one failed
}

var (
	mainCalled atomic.Bool
	once       sync.Once
	the        *cluster
	dbSeq      atomic.Int64
)

// Main runs the tests of m and then stops the cluster, if one was started.
func Main(m *testing.M) { os.Exit(Wrap(m).Run()) }

// Runner is what runs a package's tests: *testing.M, or what
// testscript.Main is given.
type Runner interface{ Run() int }

// Wrap is m, whose Run stops the cluster after the tests, for a TestMain
// that hands m to another runner (testscript.Main(pgtest.Wrap(m), ...)).
func Wrap(m Runner) Runner {
	mainCalled.Store(true)
	return wrapped{m}
}

type wrapped struct{ m Runner }

func (w wrapped) Run() int {
	code := w.m.Run()
	if the != nil && the.c != nil {
		the.c.Stop()
	}
	return code
}

// Available reports whether PostgreSQL's binaries were found, and if not,
// the message a skipped test gives.
func Available() (bool, string) {
	if _, err := pgcluster.BinDir(); err != nil {
		return false, err.Error() + ": the PostgreSQL tests skip"
	}
	return true, ""
}

// DB creates an empty database on the cluster (starting the cluster at
// the first call) and returns its URL, postgres:///NAME?host=SOCKDIR. The
// database is dropped when t ends. It skips t when PostgreSQL is missing
// and fails it when the cluster does not start.
func DB(t testing.TB) string {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("pgtest: call pgtest.Main(m) from the package's TestMain, so that the cluster is stopped after the tests")
	}
	once.Do(func() { the = start() })
	if the.skipMsg != "" {
		t.Skip(the.skipMsg)
	}
	if the.err != nil {
		t.Fatalf("pgtest: %v", the.err)
	}
	url, drop, _, err := NewDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	return url
}

// start makes and starts the cluster.
func start() *cluster {
	bin, err := pgcluster.BinDir()
	if err != nil {
		return &cluster{skipMsg: err.Error() + ": the PostgreSQL tests skip"}
	}
	c, err := pgcluster.Start(bin, "grove-pg-")
	if errors.Is(err, pgcluster.ErrNoUser) {
		return &cluster{skipMsg: err.Error() + ": the PostgreSQL tests skip"}
	}
	return &cluster{c: c, err: err}
}

// Sock is the directory of the running cluster's socket, for tests that
// hand a URL of their own making to a child process; "" before DB.
func Sock() string {
	if the == nil || the.c == nil {
		return ""
	}
	return the.c.Dir
}

// NewDB is DB for callers without a testing.TB (a testscript's Setup): it
// returns the URL of a new empty database and a function that drops it.
// skip is set, with err nil, when PostgreSQL is missing.
func NewDB() (url string, drop func(), skip string, err error) {
	if !mainCalled.Load() {
		return "", nil, "", fmt.Errorf("pgtest: call pgtest.Main(m) from the package's TestMain")
	}
	once.Do(func() { the = start() })
	if the.skipMsg != "" {
		return "", nil, the.skipMsg, nil
	}
	if the.err != nil {
		return "", nil, "", the.err
	}
	name := fmt.Sprintf("grove_test_%d_%d", os.Getpid(), dbSeq.Add(1))
	if err := the.c.Create(name, false); err != nil {
		return "", nil, "", fmt.Errorf("pgtest: %w", err)
	}
	return the.c.URL(name), func() { the.c.Drop(name) }, "", nil
}

// Open opens the database at url outside grove, for what a test checks
// directly; it is closed when tb ends.
func Open(tb testing.TB, url string) *sqlx.DB {
	tb.Helper()
	db, err := sqlx.Open("pgx", url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
