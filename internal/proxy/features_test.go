package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/testwait"
)

func TestForwarding(t *testing.T) {
	var mu sync.Mutex
	var seen *http.Request
	var body string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen, body = r, string(b)
		mu.Unlock()
		w.Header().Set("X-Up", "1")
		w.Header().Set("Connection", "X-Hop")
		w.Header().Set("X-Hop", "dropped")
		w.WriteHeader(201)
		io.WriteString(w, "made")
	}))
	defer up.Close()
	_, srv := startProxy(t, `
pools:
  default: {size: 1}
routes:
  - {path: /api*, upstream: ORIGIN/base}
`, up.URL)
	req, _ := http.NewRequest("POST", srv.URL+"/api/items?x=1", strings.NewReader("payload"))
	req.Header.Set("X-Client", "c")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	checks := []struct {
		name      string
		got, want string
	}{
		{"status", resp.Status[:3], "201"},
		{"body", string(b), "made"},
		{"origin header", resp.Header.Get(HeaderOrigin), OriginUpstream},
		{"upstream header", resp.Header.Get("X-Up"), "1"},
		{"hop-by-hop dropped", resp.Header.Get("X-Hop"), ""},
		{"upstream path", seen.URL.Path, "/base/api/items"},
		{"query", seen.URL.RawQuery, "x=1"},
		{"method", seen.Method, "POST"},
		{"request body", body, "payload"},
		{"client header", seen.Header.Get("X-Client"), "c"},
		{"forwarded for", seen.Header.Get("X-Forwarded-For"), "127.0.0.1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	r404, _ := http.Get(srv.URL + "/other")
	r404.Body.Close()
	if r404.StatusCode != 404 || r404.Header.Get(HeaderOrigin) != OriginNoRoute {
		t.Errorf("unrouted path: %d %q", r404.StatusCode, r404.Header.Get(HeaderOrigin))
	}
}

func TestCacheability(t *testing.T) {
	tests := []struct {
		cc        string
		wantCache bool
	}{
		{"public, max-age=60", true},
		{"private, max-age=60", false},
		{"public, no-cache, max-age=60", false},
		{"max-age=60", false},
	}
	for _, tc := range tests {
		t.Run(tc.cc, func(t *testing.T) {
			o := newTimerOrigin(t, 0, tc.cc)
			p, srv := startProxy(t, `
pools:
  default: {size: 2}
routes:
  - {path: /*, upstream: ORIGIN, cache: true}
`, o.srv.URL)
			client := newClient(t)
			get(client, srv.URL+"/page", time.Now())
			r := get(client, srv.URL+"/page", time.Now())
			if got := r.origin == OriginCache; got != tc.wantCache {
				t.Errorf("second response from %q, want cached=%v", r.origin, tc.wantCache)
			}
			if hits := o.hits.Load(); (hits == 1) != tc.wantCache {
				t.Errorf("origin hit %d times", hits)
			}
			if n := p.Status().CacheEntries; (n == 1) != tc.wantCache {
				t.Errorf("%d cache entries", n)
			}
		})
	}
}

func TestUpstreamErrorFallbackAndStatus(t *testing.T) {
	o := newTimerOrigin(t, 0, "public, max-age=1")
	_, srv := startProxy(t, `
pools:
  default: {size: 2}
routes:
  - {path: /fb*, upstream: ORIGIN, fallback: true, name: fb}
  - {path: /plain*, upstream: ORIGIN, error_status: 500, name: plain}
  - {path: /slow*, upstream: ORIGIN, request_timeout: 50ms, name: slow}
`, o.srv.URL)
	client := newClient(t)
	if r := get(client, srv.URL+"/fb", time.Now()); r.origin != OriginUpstream {
		t.Fatalf("warm: %+v", r)
	}
	// fallback without cache: the fresh copy is not served as a hit...
	if r := get(client, srv.URL+"/fb", time.Now()); r.origin != OriginUpstream {
		t.Fatalf("fallback-only route served a cache hit: %+v", r)
	}
	o.set(0, 503, "private")
	// ...but is served when the upstream fails.
	if r := get(client, srv.URL+"/fb", time.Now()); r.origin != OriginFallback || r.status != 200 || r.fallback != "fresh" || r.reason != OriginUpstreamError {
		t.Errorf("on 503: %+v", r)
	}
	if r := get(client, srv.URL+"/plain", time.Now()); r.status != 503 || r.origin != OriginUpstream {
		t.Errorf("upstream 503 without fallback: %+v", r)
	}
	o.set(200*time.Millisecond, 200, "private")
	if r := get(client, srv.URL+"/slow", time.Now()); r.status != 504 || r.origin != OriginUpstreamError || r.latency > 150*time.Millisecond {
		t.Errorf("request timeout: %+v", r)
	}
	o.srv.CloseClientConnections()
	o.srv.Close()
	if r := get(client, srv.URL+"/plain", time.Now()); r.status != 500 || r.origin != OriginUpstreamError {
		t.Errorf("connection refused with error_status 500: %+v", r)
	}
}

// TestReloadKeepsInFlight swaps the pool while requests wait on the old
// one: none is dropped, and new requests use the new pool.
func TestReloadKeepsInFlight(t *testing.T) {
	o := newTimerOrigin(t, 300*time.Millisecond, "private")
	const base = `
pools:
  default: {size: SIZE, checkout_timeout: 2s}
routes:
  - {path: /*, upstream: ORIGIN}
`
	p, srv := startProxy(t, strings.Replace(base, "SIZE", "1", 1), o.srv.URL)
	client := newClient(t)
	res := make(chan result, 3)
	for i := 0; i < 3; i++ { // one in flight, two waiting for the single worker
		go func() { res <- get(client, srv.URL+"/x", time.Now()) }()
	}
	if !testwait.Until(10*time.Second, func() bool { return p.Status().Pools[0].Waiting == 2 }) {
		t.Fatalf("requests not queued: %+v", p.Status().Pools)
	}
	cfg, err := config.Parse([]byte(strings.NewReplacer("SIZE", "4", "ORIGIN", o.srv.URL).Replace(base)), "new.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if st := p.Status(); st.Pools[0].Size != 4 || st.Reloads != 1 {
		t.Errorf("after reload: %+v", st)
	}
	fresh := get(client, srv.URL+"/y", time.Now())
	if fresh.status != 200 || fresh.latency > 450*time.Millisecond {
		t.Errorf("request after reload waited on the old pool: %+v", fresh)
	}
	for i := 0; i < 3; i++ {
		if r := <-res; r.status != 200 || r.err != nil {
			t.Errorf("in-flight request dropped by reload: %+v", r)
		}
	}
	if st := p.Status(); st.Pools[0].Checkouts != 4 {
		t.Errorf("checkouts %d across the reload, want 4 (counters kept)", st.Pools[0].Checkouts)
	}
}

func TestMetricsAndStatus(t *testing.T) {
	o := newTimerOrigin(t, time.Millisecond, "private")
	_, srv := startProxy(t, `
pools:
  web: {size: 2, overflow: 1}
routes:
  - {path: /*, upstream: ORIGIN, pool: web, name: all, breaker: {threshold: 5, window: 1s}}
`, o.srv.URL)
	client := newClient(t)
	for i := 0; i < 3; i++ {
		get(client, srv.URL+"/page", time.Now())
	}
	resp, err := client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := string(b)
	for _, want := range []string{
		`loadlab_proxy_pool_workers_in_use{pool="web"} 0`,
		`loadlab_proxy_pool_workers_idle{pool="web"} 2`,
		`loadlab_proxy_pool_overflow_workers_in_use{pool="web"} 0`,
		`loadlab_proxy_pool_waiting{pool="web"} 0`,
		`loadlab_proxy_pool_mailbox{pool="web"} `,
		`loadlab_proxy_pool_mailbox_peak{pool="web"} `,
		`loadlab_proxy_pool_overflow_opened_total{pool="web"} 0`,
		`loadlab_proxy_pool_checkouts_total{pool="web"} 3`,
		`loadlab_proxy_pool_checkout_wait_seconds_bucket{pool="web",le="1.002"} 3`,
		`loadlab_proxy_upstream_duration_seconds_count{route="all"} 3`,
		`loadlab_proxy_responses_total{origin="upstream",route="all",status="200"} 3`,
		`loadlab_proxy_breaker_state{route="all",state="closed"} 1`,
		`loadlab_proxy_breaker_throughput_percent{route="all"} 100`,
		`loadlab_proxy_upstream_connections_open 1`,
		`process_cpu_seconds_total`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	resp, err = client.Get(srv.URL + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(st.Pools) != 1 || st.Pools[0].Checkouts != 3 || st.Pools[0].Manager != "serial" || st.Pools[0].MailboxPeak < 1 || st.Routes[0].Responses[0].Count != 3 ||
		st.Routes[0].UpstreamLatency.Count != 3 || st.Routes[0].Breaker.State != "closed" {
		t.Errorf("/status %+v", st)
	}
}
