package proxy

import (
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/proxy/hist"
	"github.com/loadlab/loadlab/internal/routepath"
)

// Origins name who produced a response, in the X-Loadlab-Origin header and
// the responses metric.
const (
	OriginUpstream      = "upstream"       // the upstream answered
	OriginUpstreamError = "upstream_error" // connection error or request timeout
	OriginPoolTimeout   = "pool_timeout"   // no worker within checkout_timeout
	OriginBreaker       = "breaker"        // the breaker rejected the request
	OriginFallback      = "fallback"       // a cached copy served instead of an error
	OriginCache         = "cache"          // a fresh cached copy
	OriginNoRoute       = "no_route"       // no route matched
	OriginClientGone    = "client_gone"    // the client left before an answer
	OriginBadRequest    = "bad_request"    // the client's body could not be read (malformed chunked coding)
)

// route is a config route made ready to serve.
type route struct {
	cfg      *config.RouteConfig
	upstream *url.URL
	pool     *poolEntry
	breaker  *breaker.Breaker
	stats    *routeStats
	errlog   *errLog
}

func newRoute(rc *config.RouteConfig, pe *poolEntry) (*route, error) {
	u, err := url.Parse(rc.Upstream)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &route{cfg: rc, upstream: u, pool: pe, errlog: &errLog{}}, nil
}

// match returns the first route matching path, or nil.
func (rt *generation) match(path string) *route {
	for _, r := range rt.routes {
		if routepath.Match(r.cfg.Path, path) {
			return r
		}
	}
	return nil
}

// routeStats are a route's counters, kept across reloads by route name.
type routeStats struct {
	upstream *hist.Histogram
	mu       sync.Mutex
	counts   map[respKey]uint64
}

type respKey struct {
	status int
	origin string
}

func newRouteStats() *routeStats {
	return &routeStats{upstream: hist.New(), counts: map[respKey]uint64{}}
}

func (s *routeStats) count(status int, origin string) {
	s.mu.Lock()
	s.counts[respKey{status, origin}]++
	s.mu.Unlock()
}

// ResponseCount is the number of responses a route gave with one status
// from one origin.
type ResponseCount struct {
	Status int    `json:"status"`
	Origin string `json:"origin"`
	Count  uint64 `json:"count"`
}

func (s *routeStats) snapshot() []ResponseCount {
	s.mu.Lock()
	out := make([]ResponseCount, 0, len(s.counts))
	for k, n := range s.counts {
		out = append(out, ResponseCount{k.status, k.origin, n})
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Origin != out[j].Origin {
			return out[i].Origin < out[j].Origin
		}
		return out[i].Status < out[j].Status
	})
	return out
}
