package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// BenchmarkRoundTrip measures one sequential keep-alive request through the
// proxy to a 0 ms upstream, against the same request sent directly; "proxy"
// serves the proxy with net/http's server, "proxy-lean" with ServeFront
// (the lean server `loadlab proxy` runs).
func BenchmarkRoundTrip(b *testing.B) {
	up, srv := benchProxy(b, 4)
	lean := serveFront(b, srv.Config.Handler.(*Proxy)).URL
	for _, tc := range []struct{ name, url string }{{"direct", up.URL}, {"proxy", srv.URL}, {"proxy-lean", lean}} {
		b.Run(tc.name, func(b *testing.B) {
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			for i := 0; i < b.N; i++ {
				resp, err := c.Get(tc.url + "/x")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkParallel sends requests through the proxy from several
// goroutines, for CPU profiles of the proxy path (-cpuprofile).
func BenchmarkParallel(b *testing.B) {
	_, srv := benchProxy(b, 64)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(srv.URL + "/x")
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// benchProxy starts an upstream answering "hello" and a proxy in front of
// it with a pool of size workers; both close when b ends.
func benchProxy(b *testing.B, size int) (up, srv *httptest.Server) {
	b.Helper()
	up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	b.Cleanup(up.Close)
	cfg, err := config.Parse([]byte(fmt.Sprintf("pools:\n  default: {size: %d}\nroutes:\n  - {path: /*, upstream: %s}\n", size, up.URL)), "b.yaml")
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	srv = httptest.NewServer(p)
	b.Cleanup(srv.Close)
	return up, srv
}
