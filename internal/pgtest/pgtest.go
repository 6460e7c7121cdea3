// Package pgtest starts a real, throwaway PostgreSQL for tests: Debian's
// server binaries (/usr/lib/postgresql/<version>/bin), one cluster per test
// binary in a temporary directory, listening only on a unix socket in that
// directory, and a fresh database per test.
//
// initdb and postgres refuse to run as root; when the tests run as root (CI
// does) the cluster runs as an unprivileged user ("postgres" when the
// package created one, else "nobody") that owns the directory.
//
// A test binary that uses it calls Main from TestMain, so the cluster stops
// when the tests end. Where no PostgreSQL binaries exist, DB skips the test
// saying so.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// startWithin bounds how long the cluster may take to accept connections.
const startWithin = 60 * time.Second

// Cluster is a running throwaway PostgreSQL.
type Cluster struct {
	dir  string // owns data/ and the socket
	cmd  *exec.Cmd
	done chan struct{} // closed when postgres exits
	n    atomic.Int64  // databases made
	log  string
}

var (
	once    sync.Once
	cluster *Cluster
	startEr error
)

// BinDir returns the directory of the newest PostgreSQL server binaries
// installed, or "" when there are none.
func BinDir() string {
	if d := os.Getenv("HITL_PG_BINDIR"); d != "" { // another installation (or none: a directory without initdb)
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return ""
		}
		return d
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool { return version(found[i]) < version(found[j]) })
	if len(found) == 0 {
		return ""
	}
	return filepath.Dir(found[len(found)-1])
}

func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Main runs the tests of m and stops the cluster (when one started), then
// exits with the tests' code.
func Main(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	os.Exit(code)
}

// DB returns the URL of a new, empty database on the test binary's
// cluster (started on first use), dropped when t ends. It skips t, loudly,
// when no PostgreSQL binaries are installed, and fails it when they are
// but the cluster does not start.
func DB(t testing.TB) string {
	t.Helper()
	c := Start(t)
	url, err := c.CreateDB(context.Background())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := c.DropDB(context.Background(), url); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return url
}

// Start returns the test binary's cluster, starting it on first use; it
// skips t when no binaries are installed.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := BinDir()
	if bin == "" {
		t.Skip("SKIPPED: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb): install Debian's postgresql package to run the PostgreSQL tests")
	}
	once.Do(func() { cluster, startEr = start(bin) })
	if startEr != nil {
		t.Fatalf("pgtest: %v", startEr)
	}
	return cluster
}

// owner returns the credential the cluster runs as: nil when the process
// is not root.
func owner() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, errors.New("running as root and there is no unprivileged user (postgres, nobody) to run PostgreSQL as")
}

func start(bin string) (*Cluster, error) {
	cred, err := owner()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hitl-pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, done: make(chan struct{}), log: filepath.Join(dir, "postgres.log")}
	fail := func(err error) (*Cluster, error) {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "-N")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	logf, err := os.Create(c.log)
	if err != nil {
		return fail(err)
	}
	defer logf.Close()
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir,
		"-c", "listen_addresses=", "-c", "max_connections=400", "-c", "shared_buffers=32MB",
		"-c", "fsync=on", "-c", "synchronous_commit=on")
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	c.cmd.Dir = dir
	// The cluster dies with the test binary even when Main is not reached.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		return fail(fmt.Errorf("start postgres: %w", err))
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	if err := c.ready(); err != nil {
		_ = c.cmd.Process.Kill()
		<-c.done
		out, _ := os.ReadFile(c.log)
		return fail(fmt.Errorf("%w\npostgres log:\n%s", err, out))
	}
	return c, nil
}

// ready waits until the cluster accepts connections, or it exits, or
// startWithin passes.
func (c *Cluster) ready() error {
	deadline := time.Now().Add(startWithin)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within %s: %w", startWithin, err)
		}
		select {
		case <-c.done:
			return errors.New("postgres exited while starting")
		case <-tick.C:
		}
	}
}

// URL returns the URL of database db on the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@/%s?host=%s&sslmode=disable", db, c.dir)
}

// Dir returns the directory holding the cluster's data and socket.
func (c *Cluster) Dir() string { return c.dir }

// CreateDB creates a new, empty database and returns its URL.
func (c *Cluster) CreateDB(ctx context.Context) (string, error) {
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.n.Add(1))
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.URL(name), nil
}

// DropDB drops the database of url, closing its connections.
func (c *Cluster) DropDB(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", cfg.Database, err)
	}
	return nil
}

// Stop shuts the cluster down (fast shutdown) and removes its directory.
func (c *Cluster) Stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	return os.RemoveAll(c.dir)
}

// Down stops the postmaster at once (immediate shutdown, like a crash):
// the database is unreachable until Up.
func (c *Cluster) Down() error {
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	<-c.done
	return nil
}

// Up starts the postmaster again on the same data after Down and waits
// until it accepts connections (crash recovery included).
func (c *Cluster) Up() error {
	cmd := exec.Command(c.cmd.Path, c.cmd.Args[1:]...)
	cmd.SysProcAttr, cmd.Dir = c.cmd.SysProcAttr, c.cmd.Dir
	logf, err := os.OpenFile(c.log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	c.cmd, c.done = cmd, make(chan struct{})
	if err := cmd.Start(); err != nil {
		return err
	}
	done := c.done
	go func() { _ = cmd.Wait(); close(done) }()
	return c.ready()
}
