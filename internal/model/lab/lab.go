// Package lab runs the real thing the model predicts: the loadlab origin
// and proxy in this process on loopback, attacked by the loadlab
// generator, so tests and benchmarks can hold the model against
// measurements. Everything is real but the process boundaries.
package lab

import (
	"context"
	"net"
	"strings"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/origin"
	"github.com/loadlab/loadlab/internal/proxy"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/serve"
	"github.com/loadlab/loadlab/internal/targets"
)

// UpstreamPlaceholder is the upstream a config names for the origin; Run
// replaces it with the origin's real address.
const UpstreamPlaceholder = "http://origin.model.invalid"

// Measured is what an attack through the real proxy saw.
type Measured struct {
	Requests uint64
	Success  float64
	Codes    map[int]uint64
	P50, P99 time.Duration
	Max      time.Duration
	hist     *hdrhistogram.Histogram
}

// Lab is the origin and the proxy in front of it, serving on loopback.
type Lab struct {
	// URL is the proxy's base URL, http://127.0.0.1:PORT.
	URL    string
	stop   context.CancelFunc
	served sync.WaitGroup
	px     *proxy.Proxy
}

// Start starts the origin with recipe and the proxy with cfgYAML (its
// UpstreamPlaceholder replaced by the origin's address) on loopback, as
// `loadlab origin` and `loadlab proxy` serve them: by the lean server.
func Start(cfgYAML, recipe string) (*Lab, error) {
	sim := origin.New(origin.Options{Seed: 1, NoOverrides: true})
	if err := sim.LoadRecipe([]byte(recipe), "recipe.json"); err != nil {
		return nil, err
	}
	sctx, stop := context.WithCancel(context.Background())
	l := &Lab{stop: stop}
	oln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		stop()
		return nil, err
	}
	l.served.Add(1)
	go func() { defer l.served.Done(); _ = serve.ServeLean(sctx, oln, serve.Config{}, sim, nil) }()
	cfg, err := config.Parse([]byte(strings.ReplaceAll(cfgYAML, UpstreamPlaceholder, "http://"+oln.Addr().String())), "proxy.yaml")
	if err != nil {
		l.Close()
		return nil, err
	}
	if l.px, err = proxy.New(cfg, proxy.Options{}); err != nil {
		l.Close()
		return nil, err
	}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l.Close()
		return nil, err
	}
	l.URL = "http://" + pln.Addr().String()
	l.served.Add(1)
	go func() { defer l.served.Done(); _ = proxy.ServeFront(sctx, pln, l.px, proxy.Front{}) }()
	return l, nil
}

// Close stops both servers and waits for them.
func (l *Lab) Close() {
	l.stop()
	l.served.Wait()
	if l.px != nil {
		l.px.Close()
	}
}

// Run starts the lab (Start), attacks path through the proxy with sch and
// timeout per request, and returns what the attack measured, latencies
// from the due time.
func Run(cfgYAML, recipe string, sch *schedule.Schedule, timeout time.Duration, path string) (Measured, error) {
	m := Measured{Codes: map[int]uint64{}, hist: metrics.NewHistogram()}
	l, err := Start(cfgYAML, recipe)
	if err != nil {
		return m, err
	}
	defer l.Close()
	return attackPath(l.URL+path, sch, timeout)
}

// Attack attacks any url (a system loadlab did not write, such as HAProxy
// or nginx on loopback) with sch and timeout per request, as Run attacks
// the lab's proxy, and returns what it measured.
func Attack(url string, sch *schedule.Schedule, timeout time.Duration) (Measured, error) {
	return attackPath(url, sch, timeout)
}

// AttackClosed attacks url with workers users for d, each sending its
// next request when the previous one is answered (the attack's -rate=0
// -max-workers N), and returns what it measured and the throughput
// (successful answers per second).
func AttackClosed(url string, workers int, d, timeout time.Duration) (Measured, float64, error) {
	sch, err := schedule.Parse("0", d)
	if err != nil {
		return Measured{}, 0, err
	}
	m, err := attackWorkers(url, sch, timeout, workers)
	return m, m.Success * float64(m.Requests) / d.Seconds(), err
}

// attackPath attacks url with sch and timeout per request and returns
// what the attack measured, latencies from the due time.
func attackPath(url string, sch *schedule.Schedule, timeout time.Duration) (Measured, error) {
	return attackWorkers(url, sch, timeout, 0)
}

// attackWorkers is attackPath with at most workers requests in flight
// (0: the default).
func attackWorkers(url string, sch *schedule.Schedule, timeout time.Duration, workers int) (Measured, error) {
	m := Measured{Codes: map[int]uint64{}, hist: metrics.NewHistogram()}
	ts, err := targets.ReadAll(strings.NewReader("GET "+url), targets.Options{})
	if err != nil {
		return m, err
	}
	tr, err := targets.NewRoundRobin(ts)
	if err != nil {
		return m, err
	}
	o := attack.DefaultOptions()
	o.Schedule, o.Timeout, o.HTTP2 = sch, timeout, false
	if workers > 0 {
		o.MaxWorkers = workers
	}
	a, err := attack.New(tr, o)
	if err != nil {
		return m, err
	}
	var ok uint64
	ctx, cancel := context.WithTimeout(context.Background(), sch.Duration+timeout+10*time.Second)
	defer cancel()
	err = a.Run(ctx, func(r *results.Result) {
		m.Requests++
		m.Codes[int(r.Code)]++
		if r.Success() {
			ok++
		}
		metrics.RecordLatency(m.hist, r.DueLatency())
	})
	if m.Requests > 0 {
		m.Success = float64(ok) / float64(m.Requests)
	}
	m.P50, m.P99, m.Max = time.Duration(m.hist.ValueAtQuantile(50)), time.Duration(m.hist.ValueAtQuantile(99)), time.Duration(m.hist.Max())
	return m, err
}
