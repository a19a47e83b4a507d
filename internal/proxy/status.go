package proxy

import (
	"sort"

	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/hist"
	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// Status is what /status serves: the same figures as /metrics, as JSON.
type Status struct {
	// Requests is every request received (reserved paths aside). Once none
	// is in flight it equals NoRoute plus BodyRefused plus the routes'
	// responses, summed: each request is answered and counted once,
	// reloads included.
	Requests uint64 `json:"requests"`
	NoRoute  uint64 `json:"no_route"`
	// BodyRefused counts the requests stopped before routing, while their
	// body was read (before any pool worker is taken).
	BodyRefused   BodyRefused   `json:"body_refused"`
	Reloads       uint64        `json:"reloads"`
	Pools         []PoolStatus  `json:"pools"`
	Routes        []RouteStatus `json:"routes"`
	CacheEntries  int           `json:"cache_entries"`
	UpstreamConns ConnStatus    `json:"upstream_connections"`
}

// BodyRefused counts the requests stopped while their body was read:
// too slow (408), too large (413), malformed (400), or the client went
// away (499).
type BodyRefused struct {
	Slow  uint64 `json:"slow"`
	Large uint64 `json:"large"`
	Bad   uint64 `json:"bad"`
	Gone  uint64 `json:"gone"`
}

// Total is the sum of the counts.
func (b BodyRefused) Total() uint64 { return b.Slow + b.Large + b.Bad + b.Gone }

// PoolStatus is a pool's gauges, counters and checkout waits.
type PoolStatus struct {
	pool.Snapshot
	CheckoutWait hist.Summary `json:"checkout_wait"`
}

// RouteStatus is a route's responses, upstream latency and breaker.
type RouteStatus struct {
	Name            string            `json:"name"`
	Path            string            `json:"path"`
	Upstream        string            `json:"upstream"`
	Pool            string            `json:"pool"`
	Responses       []ResponseCount   `json:"responses"`
	UpstreamLatency hist.Summary      `json:"upstream_latency"`
	Breaker         *breaker.Snapshot `json:"breaker,omitempty"`
}

// ConnStatus counts upstream connections.
type ConnStatus struct {
	Open   int64  `json:"open"`
	Opened uint64 `json:"opened"`
}

// Status reports the proxy's current figures.
func (p *Proxy) Status() Status { return p.status(p.rt.Load(), true) }

// status reports the figures of generation rt. Without summaries it leaves
// out the percentile summaries, which /metrics does not export (it sends
// the buckets) and which hold each histogram's lock while they are computed.
func (p *Proxy) status(rt *generation, summaries bool) Status {
	s := Status{
		Requests: p.received.Load(),
		NoRoute:  p.noRoute.Load(),
		BodyRefused: BodyRefused{Slow: p.bodyRefused.slow.Load(), Large: p.bodyRefused.large.Load(),
			Bad: p.bodyRefused.bad.Load(), Gone: p.bodyRefused.gone.Load()},
		Reloads:       p.reloads.Load(),
		CacheEntries:  rt.cache.Len(),
		UpstreamConns: ConnStatus{Open: p.conns.Open(), Opened: p.conns.Opened()},
	}
	for _, e := range rt.sortedPools() {
		ps := PoolStatus{Snapshot: e.p.Snapshot()}
		if summaries {
			ps.CheckoutWait = e.wait.Summary()
		}
		s.Pools = append(s.Pools, ps)
	}
	for _, r := range rt.routes {
		rs := RouteStatus{
			Name: r.cfg.Name, Path: r.cfg.Path, Upstream: r.cfg.Upstream, Pool: r.pool.name,
			Responses: r.stats.snapshot(),
		}
		if summaries {
			rs.UpstreamLatency = r.stats.upstream.Summary()
		}
		if r.breaker != nil {
			b := r.breaker.Snapshot()
			rs.Breaker = &b
		}
		s.Routes = append(s.Routes, rs)
	}
	return s
}

func (rt *generation) sortedPools() []*poolEntry {
	out := make([]*poolEntry, 0, len(rt.pools))
	for _, e := range rt.pools {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
