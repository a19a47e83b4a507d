package origin

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkHandler measures the handler alone (no network): a 1 kB random
// body, no latency.
func BenchmarkHandler(b *testing.B) {
	sim := New(Options{Seed: 1})
	defer sim.Close()
	if err := sim.LoadRecipe([]byte(`{"random_content": "1kb", "stages": [{"status": 200}]}`), "bench"); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			sim.ServeHTTP(w, req)
		}
	})
}

// BenchmarkLeanRequest measures one request through the default (lean)
// server over loopback, keep-alive: a 1 kB random body, no latency.
func BenchmarkLeanRequest(b *testing.B) {
	sim := New(Options{Seed: 1})
	if err := sim.LoadRecipe([]byte(`{"random_content": "1kb", "stages": [{"status": 200}]}`), "bench"); err != nil {
		b.Fatal(err)
	}
	srv := newLeanServer(b, sim)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	req := []byte("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
