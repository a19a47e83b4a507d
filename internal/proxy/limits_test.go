package proxy

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// Request heads beyond MaxHeaderBytes get 431 and bodies sent to the
// reserved paths beyond MaxReservedBody get 413, from the real server.
func TestReservedPathAndHeaderLimits(t *testing.T) {
	o := newTimerOrigin(t, time.Millisecond, "")
	cfg, err := config.Parse([]byte(`pools: {default: {size: 2}}
routes: [{path: /*, upstream: "`+o.srv.URL+`"}]`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{Config: cfg, Listen: "127.0.0.1:0", Ready: func(u string) { ready <- u }})
	}()
	base := <-ready
	defer func() { cancel(); <-done }()

	req, _ := http.NewRequest("GET", base+"/x", nil)
	req.Header.Set("X-Big", strings.Repeat("a", MaxHeaderBytes+8192)) // the server allows 4 KiB of slack
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a %d KiB header: %s, want 431", MaxHeaderBytes/1024+8, resp.Status)
	}
	for _, path := range []string{"/status", "/metrics"} {
		resp, err := http.Post(base+path, "text/plain", bytes.NewReader(make([]byte, MaxReservedBody+1)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s with %d bytes: %s, want 413", path, MaxReservedBody+1, resp.Status)
		}
		resp, err = http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}
}
