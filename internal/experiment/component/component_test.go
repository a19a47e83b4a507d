package component

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

// The test binary doubles as the component: with LOADLAB_TEST_HELPER set it
// serves HTTP on loopback and behaves as the variable says.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LOADLAB_TEST_HELPER"); mode != "" {
		helper(mode)
		return
	}
	os.Exit(m.Run())
}

func helper(mode string) {
	switch mode {
	case "crash-at-start":
		fmt.Println("reading config")
		fmt.Fprintln(os.Stderr, "fatal: config: pool size must be positive")
		os.Exit(3)
	case "silent":
		time.Sleep(20 * time.Second)
		os.Exit(0)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(1)
	}
	fmt.Printf("helper listening on http://%s\n", l.Addr())
	go func() { time.Sleep(20 * time.Second); os.Exit(0) }() // bounded
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/die" {
			fmt.Fprintln(os.Stderr, "panic: out of workers")
			os.Exit(2)
		}
		fmt.Fprintln(w, "ok")
	}))
}

func spec(mode string) Spec {
	return Spec{Name: "helper", Argv: []string{os.Args[0], "-test.run=^$"}, Env: []string{"LOADLAB_TEST_HELPER=" + mode},
		ListenPattern: plan.DefaultListenPattern, Health: "/health", StartTimeout: 30 * time.Second}
}

func TestStartStop(t *testing.T) {
	p, err := Start(context.Background(), spec("serve"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") || p.PID <= 0 {
		t.Fatalf("url %q pid %d", p.URL, p.PID)
	}
	resp, err := http.Get(p.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p.Stop(2 * time.Second)
	if p.Died() {
		t.Error("a stopped process counts as died")
	}
	if _, err := http.Get(p.URL + "/x"); err == nil {
		t.Error("still serving after Stop")
	}
	p.Stop(time.Second) // idempotent
}

func TestDiesMidRun(t *testing.T) {
	p, err := Start(context.Background(), spec("serve"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	if p.Died() {
		t.Fatal("died before being told to")
	}
	http.Get(p.URL + "/die") // the helper exits while answering
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("did not die")
	}
	if !p.Died() {
		t.Error("Died() = false")
	}
	if !strings.Contains(strings.Join(p.Tail(), "\n"), "panic: out of workers") {
		t.Errorf("tail %q", p.Tail())
	}
	if !strings.Contains(p.ExitText(), "exit status 2") {
		t.Errorf("exit %q", p.ExitText())
	}
}

func TestStartFailures(t *testing.T) {
	for _, tc := range []struct {
		mode, want string
		timeout    time.Duration
	}{
		// stdout and stderr are separate pipes: their lines may interleave
		// either way, so each wanted piece is checked on its own. The crash
		// ends the start at once: its timeout leaves room for a loaded
		// machine to start the helper (a -race binary).
		{"crash-at-start", "exited before listening (exit status 3); last output: |reading config|fatal: config: pool size must be positive", 30 * time.Second},
		{"silent", "did not print its address", 700 * time.Millisecond},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := spec(tc.mode)
			s.StartTimeout = tc.timeout
			_, err := Start(context.Background(), s)
			if err == nil {
				t.Fatalf("got no error, want %q", tc.want)
			}
			for _, want := range strings.Split(tc.want, "|") {
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("got %v, want %q", err, want)
				}
			}
		})
	}
	_, err := Start(context.Background(), Spec{Name: "x", Argv: []string{"/nonexistent/loadlab-build"}})
	if err == nil || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("got %v", err)
	}
}

func TestKnownAddr(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	// A command told its address: the helper ignores it, so nothing listens
	// there and the start must time out on the port check.
	s := spec("serve")
	s.Addr, s.Health, s.StartTimeout = addr, "", 500*time.Millisecond
	if _, err := Start(context.Background(), s); err == nil || !strings.Contains(err.Error(), "not healthy") {
		t.Fatalf("got %v", err)
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0:8080":            "http://127.0.0.1:8080",
		"[::]:80":                 "http://127.0.0.1:80",
		"http://127.0.0.1:9000/":  "http://127.0.0.1:9000",
		"https://localhost:8443.": "https://localhost:8443",
	} {
		if got := normalise(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	if got := CommandLine([]string{"loadlab", "origin", "-recipe", "my file.json"}); got != "loadlab origin -recipe 'my file.json'" {
		t.Errorf("%q", got)
	}
}
