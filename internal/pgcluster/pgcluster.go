// Package pgcluster starts a throwaway PostgreSQL cluster: initdb in a new
// temporary directory, the server listening only on a Unix socket in that
// directory (no TCP), fsync, synchronous commit and full-page writes off,
// trust authentication for the user postgres. The tests (internal/pgtest)
// and grove-bench's team step use it (SPEC §10). As root, initdb and the
// server run as the user postgres, since initdb refuses root.
package pgcluster

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
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Cluster is a running throwaway server.
type Cluster struct {
	Dir   string // the data directory's parent, and the socket's directory
	bin   string
	runAs *user.User // nil: the current user
}

// BinDir finds the directory holding initdb and pg_ctl: $GROVE_PG_BIN,
// else the newest /usr/lib/postgresql/*/bin (Debian's), else PATH. The
// error says how to get them.
func BinDir() (string, error) {
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
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or on PATH (Debian: apt-get install postgresql; or set GROVE_PG_BIN)")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// ErrNoUser is Start's error when grove runs as root and there is no user
// postgres to run the server as.
var ErrNoUser = fmt.Errorf("running as root and there is no user postgres to run the server as (initdb refuses root)")

// Start makes a cluster in a new temporary directory named from prefix
// (keep it short: a Unix socket's path is limited to about 100 bytes) with
// the binaries of bin (BinDir), and starts it. Errors: ErrNoUser, or what
// initdb or pg_ctl said.
func Start(bin, prefix string) (*Cluster, error) {
	c := &Cluster{bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, ErrNoUser
		}
		c.runAs = u
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	c.Dir = dir
	if c.runAs != nil {
		uid, _ := strconv.Atoi(c.runAs.Uid)
		gid, _ := strconv.Atoi(c.runAs.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run("initdb", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C", "-D", data); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", dir)
	if out, err := c.run("pg_ctl", "-w", "-t", "60", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return c, nil
}

// run runs one of the cluster's binaries, as the user postgres when grove
// runs as root.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.runAs != nil {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.runAs.Username, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.Dir
	return cmd.CombinedOutput()
}

// Stop stops the server at once and removes its directory.
func (c *Cluster) Stop() {
	c.run("pg_ctl", "-w", "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "stop")
	os.RemoveAll(c.Dir)
}

// URL is the URL of database name on the cluster:
// postgres:///NAME?host=DIR&user=postgres.
func (c *Cluster) URL(name string) string {
	u := url.URL{Scheme: "postgres", Path: "/" + name, RawQuery: "host=" + url.QueryEscape(c.Dir) + "&user=postgres"}
	return u.String()
}

// Create makes database name, empty and collated byte-wise (C), as
// SQLite's text is; with replace, a database of that name is dropped
// first, its connections closed.
func (c *Cluster) Create(name string, replace bool) error {
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	if replace {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			return err
		}
	}
	if _, err := db.Exec("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// Drop drops database name, closing its connections; best effort.
func (c *Cluster) Drop(name string) {
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return
	}
	defer db.Close()
	db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
}
