package proxy

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/testwait"
)

// Every request the proxy receives is answered once and counted once:
// under concurrent load, while the config is reloaded over and over (pools
// rebuilt under requests in flight), with clients that give up, requests
// no route matches and a graceful shutdown at the end, requests_total
// equals the sum of responses_total, and every client that waited got one
// answer.
func TestEveryRequestAnsweredAndCountedOnce(t *testing.T) {
	o := newSimOrigin(t, 5*time.Millisecond, "public, max-age=1")
	cfgFor := func(size int) *config.Config {
		cfg, err := config.Parse([]byte(fmt.Sprintf(`pools:
  default: {size: %d, overflow: 2, checkout_timeout: 50ms}
routes:
  - {name: news, path: /news*, upstream: %s, fallback: true, cache: true, request_timeout: 200ms}
  - {name: all, path: /api/*, upstream: %s, request_timeout: 200ms}
`, size, o.srv.URL, o.srv.URL)), "acc.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	p, err := New(cfgFor(3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fr := serveFront(t, p)
	base := fr.URL

	// Reloads every few milliseconds while the load runs.
	stopReloads := make(chan struct{})
	reloadsDone := make(chan struct{})
	go func() {
		defer close(reloadsDone)
		for i := 0; ; i++ {
			select {
			case <-stopReloads:
				return
			case <-time.After(3 * time.Millisecond):
			}
			if err := p.Reload(cfgFor(3 + i%3)); err != nil {
				t.Error(err)
				return
			}
		}
	}()

	const clients, each = 16, 25
	var answered, gaveUp atomic.Int64
	var wg sync.WaitGroup
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	paths := []string{"/news/a", "/api/b", "/nowhere", "/news/c?x=1"}
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				if (c+i)%7 == 0 { // some clients give up while waiting
					ctx, cancel = context.WithTimeout(context.Background(), 2*time.Millisecond)
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+paths[(c+i)%len(paths)], nil)
				resp, err := hc.Do(req)
				if err != nil {
					gaveUp.Add(1)
					cancel()
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				cancel()
				answered.Add(1)
			}
		}(c)
	}
	wg.Wait()
	close(stopReloads)
	<-reloadsDone
	// The client's transport may hold connections it dialled for requests
	// that gave up and never used; net/http's Shutdown waits up to 5 s for
	// such never-used connections, so the client closes them.
	tr.CloseIdleConnections()
	// A graceful shutdown with requests still in flight answers them. They
	// go on connections of their own: a request sent on an idle keep-alive
	// connection as the server closes it fails in the client, before the
	// proxy sees it.
	before := p.Status().Requests
	late := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	inflight := make(chan int, 8)
	for i := 0; i < 8; i++ {
		go func() {
			resp, err := late.Get(base + "/api/late")
			if err != nil {
				inflight <- 0
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			inflight <- resp.StatusCode
		}()
	}
	if !testwait.Until(10*time.Second, func() bool { return p.Status().Requests >= before+8 }) {
		t.Fatal("the late requests did not reach the proxy")
	}
	if err := fr.shutdown(); err != nil {
		t.Logf("status %+v", p.Status())
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		if code := <-inflight; code == 0 {
			t.Error("a request in flight at shutdown was not answered")
		}
	}

	st := p.Status()
	var sum uint64
	for _, r := range st.Routes {
		for _, rc := range r.Responses {
			sum += rc.Count
		}
	}
	if st.Requests != sum+st.NoRoute {
		t.Errorf("received %d, answered %d by routes + %d without a route = %d", st.Requests, sum, st.NoRoute, sum+st.NoRoute)
	}
	if got := uint64(answered.Load() + 8); st.Requests < got {
		t.Errorf("clients got %d answers but the proxy received %d requests", got, st.Requests)
	}
	if st.Reloads < 3 || st.NoRoute == 0 {
		t.Errorf("the test did not exercise reloads (%d) or unrouted requests (%d)", st.Reloads, st.NoRoute)
	}
	t.Logf("%d received, %d answered to clients that waited, %d gave up, %d reloads", st.Requests, answered.Load()+8, gaveUp.Load(), st.Reloads)

	// /metrics says the same.
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	var reqs, resps float64
	for _, m := range families["loadlab_proxy_requests_total"].GetMetric() {
		reqs += m.GetCounter().GetValue()
	}
	for _, m := range families["loadlab_proxy_responses_total"].GetMetric() {
		resps += m.GetCounter().GetValue()
	}
	if reqs != resps || uint64(reqs) != st.Requests {
		t.Errorf("/metrics: requests_total %v, sum of responses_total %v, status %d", reqs, resps, st.Requests)
	}
}
