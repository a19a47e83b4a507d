package proxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// A newcomer whose origin is not where the config says gets an answer
// that names the upstream and the cause, and a log line saying the same.
func TestUpstreamErrorNamesUpstreamAndCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	cfg, err := config.Parse([]byte("pools:\n  default: {size: 2}\nroutes:\n  - {name: all, path: /*, upstream: "+dead+"}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs []string
	p, err := New(cfg, Options{Logf: func(f string, a ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(f, a...))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p)
	defer srv.Close()
	for i := 0; i < 5; i++ {
		resp, err := http.Get(srv.URL + "/search")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), dead) || !strings.Contains(string(body), "connection refused") {
			t.Fatalf("%d %q: want 502 naming %s and the cause", resp.StatusCode, body, dead)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// Five failures within a second: one line (rate-limited), naming both.
	if len(logs) != 1 || !strings.Contains(logs[0], dead) || !strings.Contains(logs[0], "connection refused") || !strings.Contains(logs[0], "route all") {
		t.Errorf("log lines: %q", logs)
	}
}

// An upstream head beyond MaxResponseHead is refused with 502, and the
// worker's connection is not reused for the next request.
func TestOversizedUpstreamHeadIs502(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.Header().Set("X-Huge", big)
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer up.Close()
	_, srv := startProxy(t, "pools:\n  default: {size: 1}\nroutes:\n  - {name: all, path: /*, upstream: ORIGIN}\n", up.URL)
	resp, err := http.Get(srv.URL + "/big")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Huge") != "" || !strings.Contains(string(body), "larger than 1 MiB") {
		t.Fatalf("%d, %d bytes of X-Huge, body %.200q", resp.StatusCode, len(resp.Header.Get("X-Huge")), body)
	}
	resp, err = http.Get(srv.URL + "/small")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("next request on the same one-worker pool: %d %q", resp.StatusCode, body)
	}
}
