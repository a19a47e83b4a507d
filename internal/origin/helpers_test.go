package origin

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/serve"
)

// newTestServer runs a Simulator on a loopback httptest server.
func newTestServer(t *testing.T, opts Options) (*Simulator, *httptest.Server) {
	t.Helper()
	if opts.Seed == 0 {
		opts.Seed = 42
	}
	sim := New(opts)
	if leanTests {
		return sim, newLeanServer(t, sim)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(func() {
		_ = sim.Close()
		srv.Close()
	})
	return sim, srv
}

// leanTests makes newTestServer use the lean server (see lean_test.go).
var leanTests bool

// newLeanServer serves sim with serve.ServeLean on the listener of an
// unstarted httptest.Server (only its URL and Listener are meant to be used).
func newLeanServer(t testing.TB, sim *Simulator) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(sim)
	srv.URL = "http://" + srv.Listener.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve.ServeLean(ctx, srv.Listener, serve.Config{ShutdownTimeout: 2 * time.Second}, sim, func() { _ = sim.Close() })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("lean server: %v", err)
		}
	})
	return srv
}

// client never decompresses, so tests see the bytes on the wire.
var client = &http.Client{
	Timeout:   10 * time.Second,
	Transport: &http.Transport{DisableCompression: true},
}

type result struct {
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
	err     error
}

func do(t *testing.T, method, url string, body string, hdr ...string) result {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return result{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: b, elapsed: time.Since(start), err: err}
}

func get(t *testing.T, url string, hdr ...string) result {
	t.Helper()
	return do(t, http.MethodGet, url, "", hdr...)
}

func mustLoad(t *testing.T, srv *httptest.Server, recipe string) {
	t.Helper()
	r := do(t, http.MethodPost, srv.URL+"/_admin/add_recipe", recipe)
	if r.err != nil || r.status != http.StatusCreated {
		t.Fatalf("add_recipe: %d %v %s", r.status, r.err, r.body)
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	return out
}
