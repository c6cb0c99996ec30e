// Package pgtest runs a throwaway PostgreSQL 15 on a free loopback port,
// for tests that must run against a real PostgreSQL.
//
// A test that needs it is skipped when PostgreSQL is not installed
// (scripts/setup installs it; CI always has it). Debian's PostgreSQL
// refuses to run as root, so as root the server runs as the postgres user,
// in a folder of its own that the test's cleanup removes.
//
//	pg := pgtest.Start(t)       // one server per test binary, started once
//	url := pg.NewDatabase(t)    // a fresh, empty database for this test
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// BinDir is where Debian's postgresql-15 installs the server's programs.
const BinDir = "/usr/lib/postgresql/15/bin"

// Server is a running PostgreSQL.
type Server struct {
	Port int
	Dir  string
	log  string
	n    atomic.Int64
}

var (
	once     sync.Once
	server   *Server
	startErr error
)

// Start returns the test binary's PostgreSQL, starting it on first use. It
// is stopped when the test binary's TestMain calls Stop (or, failing
// that, left to end with the machine's temporary folder).
func Start(tb testing.TB) *Server {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(BinDir, "pg_ctl")); err != nil {
		tb.Skipf("PostgreSQL 15 not installed at %s (scripts/setup installs it): %v", BinDir, err)
	}
	once.Do(func() { server, startErr = start() })
	if startErr != nil {
		tb.Fatalf("pgtest: %v", startErr)
	}
	return server
}

// Stop stops the server if one was started, and removes its folder. A
// TestMain calls it after m.Run.
func Stop() {
	if server == nil {
		return
	}
	server.ctl("stop", "-m", "fast")
	os.RemoveAll(server.Dir)
}

func start() (*Server, error) {
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Port: port, Dir: dir, log: filepath.Join(dir, "server.log")}
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir)
	if out, err := s.ctl("start", "-w", "-o", opts, "-l", s.log); err != nil {
		log, _ := os.ReadFile(s.log)
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return s, nil
}

func (s *Server) ctl(args ...string) ([]byte, error) {
	return s.run("pg_ctl", append([]string{"-D", filepath.Join(s.Dir, "data")}, args...)...)
}

// run runs one of the server's programs, as the postgres user when root.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(BinDir, prog)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.Dir
	return cmd.CombinedOutput()
}

// URL is the address of a database on the server.
func (s *Server) URL(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, database)
}

// NewDatabase creates an empty database for the test and returns its URL;
// the test's cleanup drops it.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), s.n.Add(1))
	admin, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		defer admin.Close()
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	return s.URL(name)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
