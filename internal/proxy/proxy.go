// Package proxy is loadlab's playground reverse proxy: routes to upstreams
// through poolboy-style worker pools with checkout and request timeouts, a
// per-route circuit breaker that recovers as Belfrage's route state does (or
// with half-open probes), and a cache of public responses whose stale copies
// are served as fallbacks. Every mechanism is real (callers wait in queues,
// connections are opened and closed), so latency staircases and pool
// collapses emerge from them rather than from formulas.
//
// The proxy serves its own /metrics (Prometheus) and /status (JSON) and can
// swap configs without dropping in-flight requests.
package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/cache"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/proxy/hist"
	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// Options are the proxy's collaborators; the zero value is ready to use.
type Options struct {
	// Now is the clock of breakers and cache; nil means time.Now.
	Now func() time.Time
	// Dial opens upstream connections; nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logf, when set, receives a line per route and second about upstream
	// errors (connection refused, reset, timeout), naming the upstream.
	Logf func(format string, args ...any)
	// ClientBodyTimeout is the longest wait for the next bytes of a
	// request body, read whole before a pool worker is taken (0:
	// DefaultClientBodyTimeout); a client slower than that gets 408.
	ClientBodyTimeout time.Duration
	// MaxRequestBody bounds the request bodies read into memory (0:
	// DefaultMaxRequestBody); a larger body gets 413.
	MaxRequestBody int64
	// ObjectPath forwards every request through the object path (request
	// and answer parsed into header maps and written again), never the
	// byte path (see bytepath.go): for comparing the two.
	ObjectPath bool
}

// Proxy is an http.Handler forwarding to the configured upstreams.
type Proxy struct {
	opts    Options
	conns   *pool.ConnCounter
	reg     *prometheus.Registry
	metrics http.Handler

	rt      atomic.Pointer[generation]
	reloads atomic.Uint64
	// received counts requests (reserved paths aside) and noRoute those no
	// route matched: with the routes' response counts they account for
	// every request (see Status.Requests).
	received, noRoute atomic.Uint64
	// bodyRefused counts the requests answered (or abandoned) before
	// routing because of their body (see readBody).
	bodyRefused bodyRefusals

	mu         sync.Mutex // serialises Reload and Close
	closed     bool
	cache      *cache.Cache
	cacheCfg   config.CacheConfig
	poolStats  map[string]*pool.Stats
	waitHists  map[string]*hist.Histogram
	routeStats map[string]*routeStats
}

// generation is one config generation, swapped atomically on reload.
type generation struct {
	cfg    *config.Config
	routes []*route
	pools  map[string]*poolEntry
	cache  *cache.Cache
}

type poolEntry struct {
	name     string
	cfg      config.PoolConfig
	upstream string // what its serial manager dials when starting a worker
	p        *pool.Pool
	wait     *hist.Histogram
}

// New builds a proxy for cfg (already validated by config.Load or config.Parse).
func New(cfg *config.Config, opts Options) (*Proxy, error) {
	if cfg == nil {
		return nil, errors.New("proxy: nil config")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ClientBodyTimeout <= 0 {
		opts.ClientBodyTimeout = DefaultClientBodyTimeout
	}
	if opts.MaxRequestBody <= 0 {
		opts.MaxRequestBody = DefaultMaxRequestBody
	}
	dial := opts.Dial
	if dial == nil {
		// No TCP keep-alive probes: a worker replaces a connection idle
		// for 50 s before using it, and turning them on takes four system
		// calls in every dial (an overflow worker dials per request).
		d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: -1}
		dial = d.DialContext
	}
	p := &Proxy{
		opts:       opts,
		conns:      &pool.ConnCounter{Dial: dial},
		reg:        prometheus.NewRegistry(),
		poolStats:  map[string]*pool.Stats{},
		waitHists:  map[string]*hist.Histogram{},
		routeStats: map[string]*routeStats{},
	}
	p.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), &collector{p: p})
	p.metrics = promhttp.HandlerFor(p.reg, promhttp.HandlerOpts{})
	if err := p.Reload(cfg); err != nil {
		return nil, err
	}
	p.reloads.Store(0)
	return p, nil
}

// Reload switches to cfg. Requests in flight finish on the pools they hold;
// pools and breakers whose settings did not change are kept with their state.
func (p *Proxy) Reload(cfg *config.Config) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("proxy: closed")
	}
	old := p.rt.Load()
	if p.cache == nil || !reflect.DeepEqual(p.cacheCfg, cfg.Cache) {
		p.cache = cache.New(cfg.Cache.MaxEntries, cfg.Cache.StaleFor.D(), p.opts.Now)
		p.cacheCfg = cfg.Cache
	}
	rt := &generation{cfg: cfg, pools: map[string]*poolEntry{}, cache: p.cache}
	upstreams := map[string]string{} // pool name -> first route's upstream
	for _, rc := range cfg.Routes {
		if name, _ := cfg.PoolFor(rc); upstreams[name] == "" {
			upstreams[name] = rc.Upstream
		}
	}
	usePool := func(name string, pc *config.PoolConfig) *poolEntry {
		if e := rt.pools[name]; e != nil {
			return e
		}
		if old != nil {
			if e := old.pools[name]; e != nil && e.cfg == *pc && e.upstream == upstreams[name] {
				rt.pools[name] = e
				return e
			}
		}
		if p.poolStats[name] == nil {
			p.poolStats[name] = &pool.Stats{}
			p.waitHists[name] = hist.New()
		}
		wait := p.waitHists[name]
		e := &poolEntry{name: name, cfg: *pc, wait: wait, upstream: upstreams[name]}
		e.p = pool.New(pool.Config{Name: name, Size: pc.Size, Overflow: pc.Overflow, CheckoutTimeout: pc.CheckoutTimeout.D(),
			Manager: pc.Manager, StartCost: pc.WorkerStartCost.D(), StopCost: pc.WorkerStopCost.D(), Upstream: upstreams[name]},
			pool.Options{Dial: p.conns.DialContext, Stats: p.poolStats[name], Observe: wait.Observe})
		rt.pools[name] = e
		return e
	}
	names := make([]string, 0, len(cfg.Pools))
	for n := range cfg.Pools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		usePool(n, cfg.Pools[n])
	}
	for _, rc := range cfg.Routes {
		name, pc := cfg.PoolFor(rc)
		rte, err := newRoute(rc, usePool(name, pc))
		if err != nil {
			return err
		}
		if p.routeStats[rc.Name] == nil {
			p.routeStats[rc.Name] = newRouteStats()
		}
		rte.stats = p.routeStats[rc.Name]
		if rc.Breaker != nil {
			rte.breaker = p.keepBreaker(old, rc)
		}
		rt.routes = append(rt.routes, rte)
	}
	p.rt.Store(rt)
	p.reloads.Add(1)
	if old != nil {
		for name, e := range old.pools {
			if rt.pools[name] != e {
				e.p.Close() // waiters still get served; busy workers close on checkin
			}
		}
	}
	return nil
}

// keepBreaker reuses the old breaker of a route whose breaker settings did
// not change.
func (p *Proxy) keepBreaker(old *generation, rc *config.RouteConfig) *breaker.Breaker {
	if old != nil {
		for _, r := range old.routes {
			if r.cfg.Name == rc.Name && r.breaker != nil && reflect.DeepEqual(r.cfg.Breaker, rc.Breaker) {
				return r.breaker
			}
		}
	}
	bc := rc.Breaker
	mode := breaker.Ramp
	if bc.Recovery == "half_open" {
		mode = breaker.HalfOpen
	}
	return breaker.New(breaker.Config{
		Window: bc.Window.D(), Threshold: bc.Threshold, Mode: mode, Ramp: bc.Ramp,
		OpenFor: bc.OpenFor.D(), Probes: bc.Probes, Now: p.opts.Now,
	})
}

// Close closes every pool and its idle connections. Call it after the HTTP
// server has drained (http.Server.Shutdown); requests still waiting for a
// worker are served as workers come back.
func (p *Proxy) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if rt := p.rt.Load(); rt != nil {
		for _, e := range rt.pools {
			e.p.Close()
		}
	}
	return nil
}

// UpstreamConnsOpen is the number of upstream connections open now.
func (p *Proxy) UpstreamConnsOpen() int64 { return p.conns.Open() }
