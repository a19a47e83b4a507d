package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// startSSHD runs Debian's real sshd on a free loopback port, listening on
// 127.0.0.1 and 127.0.0.2 (two "hosts"), accepting one generated key for
// the current user. It returns the ssh options that reach it.
func startSSHD(t *testing.T) []string {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing and CI is set: install openssh-server", sshd)
		}
		t.Skipf("%s not found: install openssh-server to run this test", sshd)
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client")
	}
	if os.Getuid() == 0 {
		// sshd started as root wants its privilege separation directory,
		// which Debian creates only when the service starts.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	for _, k := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(dir, "user.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
ListenAddress 127.0.0.2
HostKey %s
AuthorizedKeysFile %s
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PidFile %s
`, port, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid"))
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o600)
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var logs strings.Builder
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !testwait.Until(30*time.Second, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.2:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("sshd did not listen: %s", logs.String())
	}
	return []string{"-p", fmt.Sprint(port), "-i", filepath.Join(dir, "user"), "-o", "StrictHostKeyChecking=no",
		"-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"}
}

// TestFleetSSH splits an attack between two hosts reached through a real
// sshd (the same machine at 127.0.0.1 and 127.0.0.2): each host runs its
// shard with the targets sent on stdin and streams the results back, and
// the fleet prints the merged report of exactly the single-machine attack.
func TestFleetSSH(t *testing.T) {
	t.Parallel() // its own sshd and servers, the only test in the parallel group that runs loadlab in-process; judges no timing closely
	if testing.Short() {
		t.Skip("starts sshd and runs 2 s of load")
	}
	opts := startSSHD(t)
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.txt")
	os.WriteFile(targets, []byte("GET "+srv.URL+"/x\n"), 0o644)
	// The remote loadlab is this test binary acting as loadlab; sshd
	// passes no environment on, so it gets the race options the local
	// children inherit (see childRaceOptions) in the command line.
	remote := "env " + asBinaryEnv + "=1 GORACE='" + os.Getenv("GORACE") + "' " + os.Args[0]
	code, out, stderr := runCLI(t, nil, "fleet", "ssh", "-hosts", "127.0.0.1,127.0.0.2", "-ssh", strings.Join(opts, " "), "-remote", remote,
		"-targets", targets, "-out", filepath.Join(dir, "run"), "-start-at", "+5s", "--", "-rate", "50/s", "-duration", "2s", "-catch-up", "1m")
	if code != 0 {
		t.Fatalf("fleet ssh: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"100, 100, 0 (every scheduled request recorded once)", "shard-1-of-2.lll", "shard-2-of-2.lll", "1/2:1"} {
		if !strings.Contains(out+stderr, want) {
			t.Errorf("fleet output lacks %q:\n%s\n%s", want, out, stderr)
		}
	}
	// The per-shard table names each shard by its -hosts entry (both
	// hosts here are the same machine, whose hostname would not tell them
	// apart).
	for _, host := range []string{"127.0.0.1", "127.0.0.2"} {
		if !strings.Contains(out, host) {
			t.Errorf("the merged report does not name shard host %s:\n%s", host, out)
		}
	}
	// A host that cannot be reached, or that has no loadlab, is named
	// before anything is sent: exit 2, one line, no folder made.
	for _, c := range []struct{ hosts, remote, want string }{
		{"127.0.0.1,127.0.0.3", remote, "127.0.0.3: "},
		{"127.0.0.1", "true", `127.0.0.1: "true version" is not loadlab`},
		{"127.0.0.1", "loadlab-not-installed-here", "give its path with -remote"},
	} {
		code, _, stderr = runCLI(t, nil, "fleet", "ssh", "-hosts", c.hosts, "-ssh", strings.Join(opts, " ")+" -o ConnectTimeout=3", "-remote", c.remote,
			"-targets", targets, "-out", filepath.Join(dir, "run2"), "-start-at", "+20s", "--", "-rate", "10/s", "-duration", "1s")
		if code != 2 || !strings.Contains(stderr, "cannot start the shards (nothing was sent)") || !strings.Contains(stderr, c.want) ||
			strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("hosts %s, remote %s: exit %d, %q", c.hosts, c.remote, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "run2")); err == nil {
			t.Errorf("a folder was made for a fleet that could not start")
		}
	}
}
