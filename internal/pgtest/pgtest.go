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
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// cluster is the running server of this test binary.
type cluster struct {
	dir     string // data directory and socket directory's parent
	sock    string // the socket directory
	bin     string
	runAs   *user.User // nil: the current user
	skipMsg string     // set when no cluster can be started
	err     error      // set when starting one failed
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
	if the != nil && the.err == nil && the.skipMsg == "" {
		the.stop()
	}
	return code
}

// Available reports whether PostgreSQL's binaries were found, and if not,
// the message a skipped test gives.
func Available() (bool, string) {
	if _, err := binDir(); err != nil {
		return false, err.Error()
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

// url is the URL of database name on the cluster.
func (c *cluster) url(name string) string {
	u := url.URL{Scheme: "postgres", Path: "/" + name, RawQuery: "host=" + url.QueryEscape(c.sock) + "&user=postgres"}
	return u.String()
}

// binDir finds the directory holding initdb and pg_ctl.
func binDir() (string, error) {
	if d := os.Getenv("GROVE_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err != nil {
			return "", fmt.Errorf("GROVE_PG_BIN=%s holds no pg_ctl: %v", d, err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or on PATH: the PostgreSQL tests skip (Debian: apt-get install postgresql; or set GROVE_PG_BIN)")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// start makes and starts the cluster.
func start() *cluster {
	bin, err := binDir()
	if err != nil {
		return &cluster{skipMsg: err.Error()}
	}
	c := &cluster{bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return &cluster{skipMsg: "running as root and there is no user postgres to run the server as (initdb refuses root): the PostgreSQL tests skip"}
		}
		c.runAs = u
	}
	// A short path: a Unix socket's path is limited to about 100 bytes.
	c.dir, err = os.MkdirTemp("", "grove-pg-")
	if err != nil {
		c.err = err
		return c
	}
	c.sock = c.dir
	data := filepath.Join(c.dir, "data")
	if c.runAs != nil {
		uid, _ := strconv.Atoi(c.runAs.Uid)
		gid, _ := strconv.Atoi(c.runAs.Gid)
		if err := os.Chown(c.dir, uid, gid); err != nil {
			c.err = fmt.Errorf("chown %s: %w", c.dir, err)
			return c
		}
	}
	if out, err := c.run("initdb", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C", "-D", data); err != nil {
		c.err = fmt.Errorf("initdb: %v\n%s", err, out)
		return c
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", c.sock)
	if out, err := c.run("pg_ctl", "-w", "-t", "60", "-D", data, "-l", filepath.Join(c.dir, "log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		c.err = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
		return c
	}
	return c
}

// run runs one of the cluster's binaries, as the user postgres when the
// tests run as root.
func (c *cluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.runAs != nil {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.runAs.Username, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// stop stops the server and removes its directory.
func (c *cluster) stop() {
	c.run("pg_ctl", "-w", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "stop")
	os.RemoveAll(c.dir)
}

// Sock is the directory of the running cluster's socket, for tests that
// hand a URL of their own making to a child process; "" before DB.
func Sock() string {
	if the == nil {
		return ""
	}
	return strings.TrimSpace(the.sock)
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
	admin := the.url("postgres")
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, "", err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		return "", nil, "", fmt.Errorf("pgtest: create database: %v", err)
	}
	return the.url(name), func() {
		db, err := sql.Open("pgx", admin)
		if err != nil {
			return
		}
		defer db.Close()
		db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	}, "", nil
}
