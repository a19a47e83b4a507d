package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeReloadsAndShutsDown runs Serve as `loadlab proxy` does: it
// serves, reloads its config on SIGHUP (keeping the running one when the
// new one is bad), and on cancellation lets an in-flight request finish.
func TestServeReloadsAndShutsDown(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	upstream := func(name string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				arrived <- struct{}{}
				<-release
			}
			fmt.Fprint(w, name)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := upstream("a"), upstream("b")
	file := filepath.Join(t.TempDir(), "proxy.yaml")
	write := func(text string) {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := func(up string) string {
		return "pools:\n  default: {size: 2}\nroutes:\n  - {name: all, path: /*, upstream: \"" + up + "\", pool: default}\n"
	}
	write(config(a.URL))

	ready, logs, done := make(chan string, 1), make(chan string, 16), make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		done <- Serve(ctx, ServeOptions{ConfigFile: file, Listen: "127.0.0.1:0", ShutdownGrace: 10 * time.Second,
			Ready: func(url string) { ready <- url },
			Logf: func(format string, args ...any) {
				if line := fmt.Sprintf(format, args...); strings.Contains(line, "reload") {
					logs <- line
				}
			}})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("Serve returned before it was ready: %v", err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) string {
		t.Helper()
		resp, err := client.Get(url + path)
		if err != nil {
			t.Error(err)
			return ""
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	if got := get("/x"); got != "a" {
		t.Fatalf("before the reload: %q", got)
	}
	hup := func() {
		t.Helper()
		if err := sendHUP(); err != nil {
			t.Fatal(err)
		}
	}
	write(config(b.URL))
	hup()
	if line := <-logs; !strings.Contains(line, "reloaded "+file+" (1 pool, 1 route to "+b.URL+")") {
		t.Fatalf("reload: %s", line)
	}
	if got := get("/x"); got != "b" {
		t.Errorf("after the reload: %q", got)
	}
	write("pools: [")
	hup()
	if line := <-logs; !strings.Contains(line, "reload failed, keeping the running config") {
		t.Fatalf("bad reload: %s", line)
	}
	if got := get("/x"); got != "b" {
		t.Errorf("after a failed reload: %q", got)
	}

	slow := make(chan string, 1)
	go func() { slow <- get("/slow") }()
	<-arrived
	cancel()
	close(release)
	if got := <-slow; got != "b" {
		t.Errorf("the in-flight request got %q", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestServeListenError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "proxy.yaml")
	os.WriteFile(file, []byte("routes:\n  - {name: all, path: /*, upstream: \"http://127.0.0.1:1\", pool: {size: 1}}\n"), 0o644)
	err := Serve(context.Background(), ServeOptions{ConfigFile: file, Listen: "127.0.0.1:-1"})
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "listen" {
		t.Errorf("got %v, want a listen *net.OpError", err)
	}
}

// TestServeUpstreamOverride: -upstream points the routes elsewhere at
// start and again after a reload (the file still names the old upstream).
func TestServeUpstreamOverride(t *testing.T) {
	upstream := func(name string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, name+" "+r.URL.Path) }))
		t.Cleanup(srv.Close)
		return srv
	}
	a, b := upstream("a"), upstream("b")
	file := filepath.Join(t.TempDir(), "proxy.yaml")
	if err := os.WriteFile(file, []byte("pools:\n  default: {size: 2}\nroutes:\n  - {path: /*, upstream: \""+a.URL+"/base\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ready, logs, done := make(chan string, 1), make(chan string, 16), make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		done <- Serve(ctx, ServeOptions{ConfigFile: file, Listen: "127.0.0.1:0", Upstream: b.URL, ShutdownGrace: 10 * time.Second,
			Ready: func(url string) { ready <- url },
			Logf: func(format string, args ...any) {
				if line := fmt.Sprintf(format, args...); strings.Contains(line, "reload") {
					logs <- line
				}
			}})
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-done:
		t.Fatalf("Serve returned before it was ready: %v", err)
	}
	get := func() string {
		t.Helper()
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url + "/x")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	if got := get(); got != "b /base/x" {
		t.Fatalf("with -upstream: %q, want b's answer with the route's base path", got)
	}
	if err := sendHUP(); err != nil {
		t.Fatal(err)
	}
	if line := <-logs; !strings.Contains(line, "to "+b.URL) {
		t.Fatalf("reload: %s", line)
	}
	if got := get(); got != "b /base/x" {
		t.Errorf("after a reload: %q", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// sendHUP sends SIGHUP to this process, as `kill -HUP` would (through
// os.Process, so that the package's tests build on every system; only Unix
// systems deliver it).
func sendHUP() error {
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		return err
	}
	return p.Signal(syscall.SIGHUP)
}
