package proxy

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/testwait"
)

// slack is scheduling noise on a shared 2-core machine, allowed on top of
// ±5%. The time scale (W/R = 200 ms steps) keeps it small next to the steps.
const slack = 10 * time.Millisecond

type staircaseCase struct {
	name           string
	size, overflow int
	latency        time.Duration // origin
	reqTimeout     time.Duration
	checkout       time.Duration
	rate           float64
	n              int
	okStatus       int // what requests that got a worker return
}

// TestStaircase checks the pool staircase on a small pool: with W workers,
// origin latency L and rate R > W/L, latency rises in steps every W requests
// (W/R seconds) by L - W/R, and is capped at checkout_timeout plus the time
// a worker is held (min(L, request_timeout)), past which requests fail with
// the pool's timeout status after checkout_timeout.
func TestStaircase(t *testing.T) {
	if testing.Short() {
		t.Skip("paced run")
	}
	tests := []staircaseCase{
		// Origin faster than the request timeout: staircase then cap at
		// checkout + L.
		{"origin under request timeout", 4, 4, 400 * time.Millisecond, 2 * time.Second, 600 * time.Millisecond, 40, 64, 200},
		// Origin slower than the request timeout (as with a 5 s origin and
		// a 5 s timeout): cap at checkout + request timeout.
		{"origin past request timeout", 8, 0, 800 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond, 40, 64, 504},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { retryTiming(t, func(c *checker) { staircaseOnce(t, c, tc) }) })
	}
}

func staircaseOnce(t *testing.T, c *checker, tc staircaseCase) {
	o := newSimOrigin(t, tc.latency, "private, max-age=0")
	yaml := fmt.Sprintf(`
pools:
  p: {size: %d, overflow: %d, checkout_timeout: %s, timeout_status: 503}
routes:
  - {path: "/*", upstream: ORIGIN, pool: p, request_timeout: %s}
`, tc.size, tc.overflow, tc.checkout, tc.reqTimeout)
	p, srv := startProxy(t, yaml, o.srv.URL)
	client := newClient(t)
	// Warm up: every worker and client connection once, then idle (every
	// worker checked back in).
	pace(t, client, srv.URL+"/warm", 1000, tc.size+tc.overflow)
	idle(t, p)
	p.Status() // and the status path
	res := pace(t, client, srv.URL+"/search", tc.rate, tc.n)

	w := tc.size + tc.overflow
	hold := min(tc.latency, tc.reqTimeout)
	stepLen := time.Duration(float64(w) / tc.rate * float64(time.Second))
	stepUp := hold - stepLen
	capAt := tc.checkout + hold
	var ok, failed, above int
	byStep := map[int][]time.Duration{}
	var capped, failedLat []time.Duration
	capStep := int((tc.checkout+stepUp-1)/stepUp) + 1 // first step whose wait reaches the checkout timeout
	for _, r := range res {
		if r.err != nil {
			c.brokenf("request %d: %v", r.i, r.err)
		}
		switch r.status {
		case tc.okStatus:
			ok++
			byStep[r.i/w] = append(byStep[r.i/w], r.latency)
			if r.i/w >= capStep {
				capped = append(capped, r.latency)
			}
			if !within(r.latency, capAt, 0.05, slack) && r.latency > capAt {
				above++
			}
			// However slow the machine, a worker is held for its time.
			if r.latency < hold {
				c.brokenf("request %d: %d after %v, sooner than the %v a worker is held", r.i, r.status, r.latency, hold)
			}
		case 503:
			failed++
			failedLat = append(failedLat, r.latency)
			if r.origin != OriginPoolTimeout {
				c.brokenf("request %d: 503 from %q, want pool_timeout", r.i, r.origin)
			}
			if r.latency < tc.checkout {
				c.brokenf("request %d: pool timeout after %v, before the checkout timeout %v", r.i, r.latency, tc.checkout)
			}
		default:
			c.brokenf("request %d: status %d", r.i, r.status)
		}
	}
	// The first steps: W requests each, latency hold + j*(hold - W/R).
	for j := 0; j < capStep; j++ {
		want := hold + time.Duration(j)*stepUp
		got := median(byStep[j])
		t.Logf("step %d: %d requests, median %v, want %v", j, len(byStep[j]), got, want)
		if !within(got, want, 0.05, slack) {
			c.errorf("step %d: median latency %v, want %v ±5%%", j, got, want)
		}
	}
	// Past them, successes sit at the cap and failures come after
	// the checkout timeout. Medians, and few outliers, because
	// timers run late on a loaded machine.
	if m := median(capped); !within(m, capAt, 0.05, slack) {
		c.errorf("capped successes: median %v, want the cap %v ±5%%", m, capAt)
	}
	if m := median(failedLat); !within(m, tc.checkout, 0.05, slack) {
		c.errorf("pool timeouts: median %v, want checkout_timeout %v ±5%%", m, tc.checkout)
	}
	if above*10 > ok {
		c.errorf("%d of %d successes above the cap %v +5%%", above, ok, capAt)
	}
	// The rate is twice what the workers carry: whatever the timing, some
	// requests get a worker and some time out.
	if failed == 0 || ok == 0 {
		c.brokenf("%d ok, %d pool timeouts: want both", ok, failed)
	}
	st := p.Status()
	if st.Pools[0].Timeouts != uint64(failed) { // warm-up had none
		c.brokenf("status counts %d checkout timeouts, clients saw %d", st.Pools[0].Timeouts, failed)
	}
	t.Logf("%d ok, %d failed; checkout wait %+v", ok, failed, st.Pools[0].CheckoutWait)
}

// TestEnoughWorkers checks that with W >= R*L every request succeeds in about
// L and nobody waits for a worker.
func TestEnoughWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("paced run")
	}
	tests := []struct {
		name           string
		size, overflow int
		latency        time.Duration
		rate           float64
		n              int
		// maxWait bounds the longest checkout: a mailbox round trip on a
		// fixed pool (5 ms leaves room for a goroutine waiting for a CPU
		// under -race on a shared machine; a missing worker would wait for
		// a checkin, ~33 ms apart here), plus a dial per overflow worker
		// the serial manager starts.
		maxWait time.Duration
	}{
		{"fixed pool", 8, 0, 200 * time.Millisecond, 30, 45, 5 * time.Millisecond},
		{"pool with overflow", 4, 4, 200 * time.Millisecond, 30, 45, 20 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			retryTiming(t, func(c *checker) {
				o := newSimOrigin(t, tc.latency, "private")
				yaml := fmt.Sprintf(`
pools:
  default: {size: %d, overflow: %d, checkout_timeout: 100ms}
routes:
  - {path: "/*", upstream: ORIGIN, request_timeout: 1s}
`, tc.size, tc.overflow)
				p, srv := startProxy(t, yaml, o.srv.URL)
				res := pace(t, newClient(t), srv.URL+"/news", tc.rate, tc.n)
				var lat []time.Duration
				for _, r := range res {
					switch {
					case r.err != nil:
						c.brokenf("request %d: %v", r.i, r.err)
					case r.status == 200 && r.origin == OriginUpstream:
						if r.latency < tc.latency {
							c.brokenf("request %d took %v, less than the origin's %v", r.i, r.latency, tc.latency)
						}
					case r.origin == OriginPoolTimeout:
						// Only a machine that stalls the test can make
						// requests wait this long for a worker.
						c.errorf("request %d: %d %q", r.i, r.status, r.origin)
					default:
						c.brokenf("request %d: %d %q", r.i, r.status, r.origin)
					}
					lat = append(lat, r.latency)
					if r.latency > tc.latency*3/2 {
						c.errorf("request %d took %v, origin takes %v", r.i, r.latency, tc.latency)
					}
				}
				if m := median(lat); !within(m, tc.latency, 0.05, 0) {
					c.errorf("median %v, want %v ±5%%", m, tc.latency)
				}
				ps := p.Status().Pools[0]
				if ps.Timeouts != 0 || ps.CheckoutWait.Max > tc.maxWait.Seconds() {
					c.errorf("requests waited for workers: %+v", ps)
				}
			})
		})
	}
}

// TestBreakerFallbackRecovery follows a breaker incident: the origin slows, the pool
// drains, pool timeouts trip the breaker, stale fallbacks are served, and
// once the origin recovers the breaker closes again.
func TestBreakerFallbackRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("paced run")
	}
	tests := []struct {
		name     string
		recovery string
	}{
		{"ramp", "recovery: ramp"},
		{"half open", "{recovery: half_open, open_for: 300ms, probes: 2}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := newSimOrigin(t, 5*time.Millisecond, "public, max-age=1")
			bc := "{window: 300ms, threshold: 3, recovery: ramp}"
			if tc.name != "ramp" {
				bc = "{window: 300ms, threshold: 3, recovery: half_open, open_for: 300ms, probes: 2}"
			}
			yaml := `
pools:
  news: {size: 2, overflow: 0, checkout_timeout: 100ms}
routes:
  - name: news
    path: /news*
    upstream: ORIGIN
    pool: news
    request_timeout: 2s
    cache: true
    fallback: true
    breaker: ` + bc + "\n"
			clock := &offsetClock{}
			p, srv := startProxyOpts(t, yaml, o.srv.URL, Options{Now: clock.Now})
			client := newClient(t)
			if r := get(client, srv.URL+"/news", time.Now()); r.status != 200 || r.origin != OriginUpstream {
				t.Fatalf("warm-up: %+v", r)
			}
			if r := get(client, srv.URL+"/news", time.Now()); r.origin != OriginCache {
				t.Fatalf("second request not a cache hit: %+v", r)
			}
			clock.advance(1100 * time.Millisecond)          // the copy goes stale (max-age=1)
			o.set(time.Second, 200, "private, max-age=0")   // an origin that stops caching
			res := pace(t, client, srv.URL+"/news", 50, 40) // 0.8 s: drains the pool
			seen := map[string]int{}
			for _, r := range res {
				seen[r.origin+"/"+r.reason]++
				if r.origin == OriginFallback && (r.fallback != "stale" || r.status != 200) {
					t.Errorf("fallback %d %q, want 200 stale", r.status, r.fallback)
				}
			}
			t.Logf("while slow: %v", seen)
			if seen["fallback/pool_timeout"] == 0 || seen["fallback/breaker"] == 0 {
				t.Errorf("want fallbacks for pool timeouts then for the open breaker, got %v", seen)
			}
			if seen["pool_timeout/"] != 0 || seen["breaker/"] != 0 {
				t.Errorf("errors served though a stale copy existed: %v", seen)
			}
			b := p.Status().Routes[0].Breaker
			if b.Transitions["closed->open"] == 0 {
				t.Fatalf("breaker never opened: %+v", b)
			}
			// The origin recovers; the breaker follows within a few windows.
			o.set(5*time.Millisecond, 200, "public, max-age=1")
			closed := testwait.Until(10*time.Second, func() bool {
				get(client, srv.URL+"/news?poll", time.Now())
				return p.Status().Routes[0].Breaker.State == "closed"
			})
			b = p.Status().Routes[0].Breaker
			if !closed {
				t.Fatalf("breaker did not close after the origin recovered: %+v", b)
			}
			t.Logf("breaker transitions %v", b.Transitions)
			if tc.name == "ramp" && b.Transitions["open->recovering"] == 0 {
				t.Errorf("ramp recovery skipped the ramp: %v", b.Transitions)
			}
			if tc.name != "ramp" && b.Transitions["half_open->closed"] == 0 {
				t.Errorf("half-open recovery did not probe: %v", b.Transitions)
			}
			if r := get(client, srv.URL+"/news?after", time.Now()); r.origin != OriginUpstream || r.status != 200 {
				t.Errorf("after recovery: %+v", r)
			}
		})
	}
}

// TestNoLeaks runs a burst that uses overflow workers and timeouts, then
// checks that goroutines and connections return to where they started.
func TestNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("paced run")
	}
	o := newSimOrigin(t, 100*time.Millisecond, "private")
	base := runtime.NumGoroutine()
	func() {
		cfg, err := config.Parse([]byte(`
pools:
  default: {size: 2, overflow: 4, checkout_timeout: 50ms}
routes:
  - {path: "/*", upstream: `+o.srv.URL+`, request_timeout: 80ms}
`), "leak.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := newLocalServer(t, p)
		client := newClient(t)
		res := pace(t, client, srv.URL+"/x", 100, 50)
		codes := map[int]int{}
		for _, r := range res {
			codes[r.status]++
		}
		t.Logf("statuses %v, upstream connections opened %d", codes, p.Status().UpstreamConns.Opened)
		client.Transport.(interface{ CloseIdleConnections() }).CloseIdleConnections()
		srv.Close()
		p.Close()
		if n := p.UpstreamConnsOpen(); n != 0 {
			t.Errorf("%d upstream connections still open after Close", n)
		}
	}()
	if !testwait.Until(10*time.Second, func() bool { return o.conns.Load() == 0 }) {
		t.Errorf("origin still holds %d connections", o.conns.Load())
	}
	if !testwait.Until(10*time.Second, func() bool { return runtime.NumGoroutine() <= base }) {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", base, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}
