package proxy

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/hist"
)

// collector exports the proxy's state at scrape time, from the same
// figures as Status, so /metrics and /status never disagree.
type collector struct{ p *Proxy }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("loadlab_proxy_"+name, help, labels, nil)
}

var (
	dPoolSize       = desc("pool_size", "Persistent workers configured.", "pool")
	dPoolMaxOver    = desc("pool_max_overflow", "Overflow workers allowed.", "pool")
	dInUse          = desc("pool_workers_in_use", "Workers checked out, overflow included.", "pool")
	dIdle           = desc("pool_workers_idle", "Persistent workers free.", "pool")
	dOverInUse      = desc("pool_overflow_workers_in_use", "Overflow workers alive (all checked out).", "pool")
	dWaiting        = desc("pool_waiting", "Requests waiting for a worker.", "pool")
	dCheckouts      = desc("pool_checkouts_total", "Successful worker checkouts.", "pool")
	dTimeouts       = desc("pool_checkout_timeouts_total", "Checkouts that gave up after checkout_timeout.", "pool")
	dOverOpened     = desc("pool_overflow_opened_total", "Overflow workers started (serial manager: each one a dial plus worker_start_cost inside the manager).", "pool")
	dOverClosed     = desc("pool_overflow_closed_total", "Workers dismissed while overflow was out (serial manager: each one a close plus worker_stop_cost inside the manager).", "pool")
	dMailbox        = desc("pool_mailbox", "Messages (checkouts, checkins, cancels) queued for the pool's serial manager: poolboy's mailbox.", "pool")
	dMailboxPeak    = desc("pool_mailbox_peak", "The most messages ever queued for the pool's serial manager.", "pool")
	dWait           = desc("pool_checkout_wait_seconds", "Time spent waiting for a worker (timeouts included).", "pool")
	dUpstream       = desc("upstream_duration_seconds", "Upstream request time, headers to end of body, while holding a worker.", "route")
	dResponses      = desc("responses_total", "Responses by route, status and origin (upstream, upstream_error, pool_timeout, breaker, fallback, cache, client_gone, bad_request).", "route", "status", "origin")
	dBreakerState   = desc("breaker_state", "1 for the breaker's current state.", "route", "state")
	dBreakerThrough = desc("breaker_throughput_percent", "Share of requests the breaker lets through.", "route")
	dBreakerTrans   = desc("breaker_transitions_total", "Breaker state changes.", "route", "from", "to")
	dBreakerReject  = desc("breaker_rejected_total", "Requests the breaker rejected.", "route")
	dCacheEntries   = desc("cache_entries", "Responses held in the cache.")
	dConnsOpen      = desc("upstream_connections_open", "Upstream connections open.")
	dConnsOpened    = desc("upstream_connections_opened_total", "Upstream connections opened.")
	dReloads        = desc("config_reloads_total", "Successful config reloads.")
	dRequests       = desc("requests_total", "Requests received (/metrics and /status aside); once none is in flight, the sum of responses_total.")
)

// Describe sends nothing: the collector is unchecked, its series depend on
// the config.
func (c *collector) Describe(chan<- *prometheus.Desc) {}

// Collect exports the current figures.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	// One generation for the figures and the histograms, so that a reload
	// between the two cannot pair a route with another's latencies.
	rt := c.p.rt.Load()
	s := c.p.status(rt, false)
	g := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	ctr := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, l...)
	}
	histo := func(d *prometheus.Desc, h *hist.Histogram, l ...string) {
		n, sum, b := h.Cumulative()
		ch <- prometheus.MustNewConstHistogram(d, n, sum, b, l...)
	}
	for _, ps := range s.Pools {
		n := ps.Name
		g(dPoolSize, float64(ps.Size), n)
		g(dPoolMaxOver, float64(ps.Overflow), n)
		g(dInUse, float64(ps.InUse), n)
		g(dIdle, float64(ps.Idle), n)
		g(dOverInUse, float64(ps.OverflowInUse), n)
		g(dWaiting, float64(ps.Waiting), n)
		g(dMailbox, float64(ps.Mailbox), n)
		g(dMailboxPeak, float64(ps.MailboxPeak), n)
		ctr(dCheckouts, float64(ps.Checkouts), n)
		ctr(dTimeouts, float64(ps.Timeouts), n)
		ctr(dOverOpened, float64(ps.OverflowOpened), n)
		ctr(dOverClosed, float64(ps.OverflowClosed), n)
		histo(dWait, rt.pools[n].wait, n)
	}
	for i, rs := range s.Routes {
		histo(dUpstream, rt.routes[i].stats.upstream, rs.Name)
		for _, rc := range rs.Responses {
			ctr(dResponses, float64(rc.Count), rs.Name, strconv.Itoa(rc.Status), rc.Origin)
		}
		if b := rs.Breaker; b != nil {
			for _, st := range breaker.States {
				v := 0.0
				if st.String() == b.State {
					v = 1
				}
				g(dBreakerState, v, rs.Name, st.String())
			}
			g(dBreakerThrough, float64(b.Throughput), rs.Name)
			ctr(dBreakerReject, float64(b.Rejected), rs.Name)
			for k, n := range b.Transitions {
				from, to, _ := strings.Cut(k, "->")
				ctr(dBreakerTrans, float64(n), rs.Name, from, to)
			}
		}
	}
	ctr(dRequests, float64(s.Requests))
	if s.NoRoute > 0 {
		ctr(dResponses, float64(s.NoRoute), "", "404", OriginNoRoute)
	}
	if b := s.BodyRefused; b.Total() > 0 {
		ctr(dResponses, float64(b.Slow), "", "408", OriginClientBody)
		ctr(dResponses, float64(b.Large), "", "413", OriginClientBody)
		ctr(dResponses, float64(b.Bad), "", "400", OriginBadRequest)
		ctr(dResponses, float64(b.Gone), "", "499", OriginClientBody)
	}
	g(dCacheEntries, float64(s.CacheEntries))
	g(dConnsOpen, float64(s.UpstreamConns.Open))
	ctr(dConnsOpened, float64(s.UpstreamConns.Opened))
	ctr(dReloads, float64(s.Reloads))
}
