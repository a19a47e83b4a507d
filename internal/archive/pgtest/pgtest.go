// Package pgtest starts a real, throwaway Postgres for tests: Debian's
// postgresql binaries (initdb, pg_ctl) in a temporary data folder on a free
// loopback port, password authentication on, run as the postgres user when
// the tests run as root (Postgres refuses root). Missing binaries skip the
// test, or fail it when the CI environment variable is set.
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
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// User and Password are the superuser the server is set up with.
const (
	User     = "loadlab"
	Password = "loadlab-test-secret"
)

// Server is a running Postgres.
type Server struct {
	Port int
	dir  string
	bin  string
	as   []string // command prefix running as the postgres user, or none
	n    int
	mu   sync.Mutex
}

var (
	sharedMu  sync.Mutex
	shared    *Server
	sharedErr error
)

// Shared returns the package's one server, started on first use; call
// StopShared from TestMain after the tests.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = Start()
	}
	if sharedErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("postgres: %v (CI installs Debian's postgresql)", sharedErr)
		}
		t.Skipf("postgres: %v (install Debian's postgresql to run this test)", sharedErr)
	}
	return shared
}

// StopShared stops the shared server, if one was started.
func StopShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.Stop()
		shared = nil
	}
}

// binDir finds the newest /usr/lib/postgresql/*/bin holding initdb.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("no initdb under /usr/lib/postgresql/*/bin")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// FreePort returns a loopback port nothing listens on right now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start initialises and starts a server.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loadlab-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the postgres user to run Postgres: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.as = []string{"runuser", "-u", "postgres", "--"}
	}
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(Password+"\n"), 0o644); err != nil {
		s.cleanup()
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", User, "--pwfile", pw, "--auth", "scram-sha-256", "-E", "UTF8", "--no-sync"); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	for try := 0; ; try++ {
		if s.Port, err = FreePort(); err != nil {
			s.cleanup()
			return nil, err
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", s.Port, dir)
		out, err := s.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start")
		if err == nil {
			return s, nil
		}
		if try == 2 { // the port may have been taken between the check and the start
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			s.cleanup()
			return nil, fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
		}
	}
}

func (s *Server) run(prog string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, s.as...), filepath.Join(s.bin, prog)), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

// Stop stops the server and removes its data.
func (s *Server) Stop() {
	s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	s.cleanup()
}

func (s *Server) cleanup() { os.RemoveAll(s.dir) }

// DSN is the URL of database db with the given password.
func (s *Server) DSN(db, password string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", User, password, s.Port, db)
}

// NewDB creates an empty database and returns its URL.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.n)
	s.mu.Unlock()
	dsn, err := s.CreateDB(name)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// CreateDB creates an empty database called name (lower-case letters,
// digits and _) and returns its URL.
func (s *Server) CreateDB(name string) (string, error) {
	db, err := sql.Open("pgx", s.DSN("postgres", Password))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + strings.ToLower(name)); err != nil {
		return "", fmt.Errorf("create database: %v", err)
	}
	return s.DSN(strings.ToLower(name), Password), nil
}
