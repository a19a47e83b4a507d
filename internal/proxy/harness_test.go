package proxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/origin"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/testwait"
)

// result is one request of a paced run.
type result struct {
	i        int
	sent     time.Duration // since the run started
	latency  time.Duration
	status   int
	origin   string // X-Loadlab-Origin
	fallback string // X-Loadlab-Fallback
	reason   string // X-Loadlab-Fallback-Reason
	err      error
}

// pace sends n GETs to url at rate per second (open model: each request
// leaves on schedule whatever the others do) and waits for all of them.
// It is bounded by n and by the client's timeout.
func pace(t *testing.T, client *http.Client, url string, rate float64, n int) []result {
	t.Helper()
	out := make([]result, n)
	var wg sync.WaitGroup
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; i < n; i++ {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = get(client, url, start)
			out[i].i = i
		}()
	}
	wg.Wait()
	return out
}

func get(client *http.Client, url string, start time.Time) result {
	sent := time.Now()
	r := result{sent: sent.Sub(start)}
	resp, err := client.Get(url)
	if err != nil {
		r.err = err
		r.latency = time.Since(sent)
		return r
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r.latency = time.Since(sent)
	r.status = resp.StatusCode
	r.origin = resp.Header.Get(HeaderOrigin)
	r.fallback = resp.Header.Get(HeaderFallback)
	r.reason = resp.Header.Get(HeaderFallbackReason)
	return r
}

// newClient is a keep-alive client with room for every concurrent request.
func newClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 512, Proxy: nil}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// timerOrigin is a stand-in upstream: each request sleeps for the current
// latency then answers status with the current Cache-Control. It counts
// the connections it holds open.
type timerOrigin struct {
	srv     *httptest.Server
	latency atomic.Int64 // nanoseconds
	status  atomic.Int64
	cc      atomic.Value // string
	conns   atomic.Int64
	hits    atomic.Int64
}

func newTimerOrigin(t *testing.T, latency time.Duration, cc string) *timerOrigin {
	o := &timerOrigin{}
	o.set(latency, 200, cc)
	o.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		select {
		case <-time.After(time.Duration(o.latency.Load())):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Cache-Control", o.cc.Load().(string))
		w.WriteHeader(int(o.status.Load()))
		fmt.Fprintf(w, "hello from %s\n", r.URL.Path)
	}))
	countConns(o.srv, &o.conns)
	o.srv.Start()
	t.Cleanup(o.srv.Close)
	return o
}

func (o *timerOrigin) set(latency time.Duration, status int, cc string) {
	o.latency.Store(int64(latency))
	o.status.Store(int64(status))
	o.cc.Store(cc)
}

// front is a proxy served on loopback by ServeFront, the server `loadlab
// proxy` runs.
type front struct {
	URL      string
	shutdown func() error // ends ServeFront (grace 5 s); its error
}

// startProxy parses yaml (with ORIGIN replaced by the upstream URL) and
// serves a proxy on loopback with ServeFront.
func startProxy(t *testing.T, yaml, upstream string) (*Proxy, *front) {
	t.Helper()
	return startProxyOpts(t, yaml, upstream, Options{})
}

// startProxyOpts is startProxy with the proxy's options.
func startProxyOpts(t *testing.T, yaml, upstream string, opts Options) (*Proxy, *front) {
	t.Helper()
	cfg, err := config.Parse([]byte(strings.ReplaceAll(yaml, "ORIGIN", upstream)), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, serveFront(t, p)
}

// serveFront serves p with ServeFront until the test ends (or shutdown).
func serveFront(t testing.TB, p *Proxy) *front {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeFront(ctx, ln, p, Front{ShutdownGrace: 5 * time.Second}) }()
	var once sync.Once
	var serr error
	f := &front{URL: "http://" + ln.Addr().String(), shutdown: func() error {
		once.Do(func() {
			cancel()
			serr = <-done
		})
		return serr
	}}
	t.Cleanup(func() {
		if err := f.shutdown(); err != nil {
			t.Errorf("ServeFront: %v", err)
		}
		p.Close()
	})
	return f
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// within reports whether got is within frac of want, plus slack for
// scheduling noise on a busy machine.
func within(got, want time.Duration, frac float64, slack time.Duration) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= time.Duration(float64(want)*frac)+slack
}

// idle waits until p's pools have every worker checked back in and
// nobody waiting (a worker is checked in after the client has its answer).
func idle(t *testing.T, p *Proxy) {
	t.Helper()
	testwait.Eventually(t, 10*time.Second, "the pools to be idle", func() bool {
		for _, ps := range p.Status().Pools {
			if ps.InUse != 0 || ps.OverflowInUse != 0 || ps.Waiting != 0 || ps.Mailbox != 0 {
				return false
			}
		}
		return true
	})
}

// offsetClock is time.Now moved forward by what advance added: the
// proxy's clock for cache ages and breaker windows, so that a test can let
// a cached copy go stale without waiting.
type offsetClock struct{ d atomic.Int64 }

func (c *offsetClock) Now() time.Time          { return time.Now().Add(time.Duration(c.d.Load())) }
func (c *offsetClock) advance(d time.Duration) { c.d.Add(int64(d)) }

func newLocalServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// countConns keeps n at the number of srv's open connections.
func countConns(srv *httptest.Server, n *atomic.Int64) {
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			n.Add(1)
		case http.StateClosed, http.StateHijacked:
			n.Add(-1)
		}
	}
}

// simOrigin is loadlab's origin simulator on loopback, driven by recipes;
// set swaps the recipe.
type simOrigin struct {
	t     *testing.T
	sim   *origin.Simulator
	srv   *httptest.Server
	conns atomic.Int64
}

func newSimOrigin(t *testing.T, latency time.Duration, cc string) *simOrigin {
	o := &simOrigin{t: t, sim: origin.New(origin.Options{Seed: 1, NoOverrides: true})}
	o.set(latency, 200, cc)
	o.srv = httptest.NewUnstartedServer(o.sim)
	countConns(o.srv, &o.conns)
	o.srv.Start()
	t.Cleanup(func() {
		o.srv.Close()
		o.sim.Close()
	})
	return o
}

// set loads a one-stage recipe: every path answers status after latency
// with the given Cache-Control.
func (o *simOrigin) set(latency time.Duration, status int, cc string) {
	recipe := fmt.Sprintf(`[{"route": "/*", "stages": [{"at": 0, "status": %d, "latency": %q}],
  "headers": {"cache-control": %q}, "body": "hello from the origin simulator\n"}]`, status, latency.String(), cc)
	if err := o.sim.LoadRecipe([]byte(recipe), "test-recipe.json"); err != nil {
		o.t.Fatal(err)
	}
}

// checker collects the failures of one attempt of a timing test: timing
// windows missed (errorf), judged only when the attempt ran without the
// machine stalling the test, and checks that hold however slow the
// machine is (brokenf): statuses, counts, and bounds that timers and
// latencies cannot cross (a request cannot beat its origin's latency, a
// checkout cannot time out before its timeout).
type checker struct{ errs, broken []string }

func (c *checker) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *checker) brokenf(format string, args ...any) {
	c.broken = append(c.broken, fmt.Sprintf(format, args...))
}

// quietStall is the longest the test may be kept off the CPU in an attempt
// whose timing windows are judged: the slack the windows allow.
const quietStall = slack

// maxAttempts bounds the runs of a timing test on a noisy machine.
const maxAttempts = 3

// retryTiming runs a paced scenario until its checks pass, judging its
// timing windows only on quiet attempts: on a shared 2-core machine a
// process can be kept off the CPU for hundreds of milliseconds (measured
// by stallMeter while the scenario runs), which shifts a whole run. The
// checks that hold however slow the machine fail the test at once; missed
// windows fail it when two quiet attempts miss them (one quiet miss may be
// a stall the meter did not see); when every attempt was stalled, the
// windows are reported as not judged.
func retryTiming(t *testing.T, run func(c *checker)) {
	t.Helper()
	quietMisses := 0
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		c := &checker{}
		m := startStallMeter()
		run(c)
		stall := m.stop()
		for _, e := range c.broken {
			t.Error(e)
		}
		if len(c.broken) > 0 || len(c.errs) == 0 {
			return
		}
		if stall >= quietStall {
			t.Logf("attempt %d missed timing windows while the test was kept off the CPU for up to %v (not judged): %s",
				attempt, stall, strings.Join(c.errs, "; "))
			continue
		}
		if quietMisses++; quietMisses == 2 {
			for _, e := range c.errs {
				t.Error(e)
			}
			return
		}
		t.Logf("attempt %d missed timing windows (longest stall %v), retrying: %s", attempt, stall, strings.Join(c.errs, "; "))
	}
	t.Logf("timing windows not judged: every attempt was kept off the CPU for %v or more", quietStall)
}

// stallMeter measures how long the test process is kept off the CPU: a
// goroutine asks to wake every millisecond and notes how late it woke.
type stallMeter struct {
	quit    chan struct{}
	done    chan struct{}
	longest time.Duration
}

func startStallMeter() *stallMeter {
	m := &stallMeter{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		last := time.Now()
		for {
			select {
			case <-m.quit:
				return
			case <-tk.C:
			}
			now := time.Now()
			m.longest = max(m.longest, now.Sub(last)-time.Millisecond)
			last = now
		}
	}()
	return m
}

// stop ends the measure and returns the longest stall.
func (m *stallMeter) stop() time.Duration {
	close(m.quit)
	<-m.done
	return m.longest
}
