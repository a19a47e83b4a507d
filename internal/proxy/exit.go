package proxy

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/cache"
	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// verdict is what an exchange tells its route's breaker.
type verdict uint8

const (
	verdictNone   verdict = iota // nothing: the breaker was not asked (cache hit) or refused
	verdictForget                // admitted, no outcome: the client went away or was at fault, the pool closed
	verdictOK                    // a success
	verdictFailed                // a failure: an error status, a timeout, no upstream answer
)

// answer is what exit writes to the client.
type answer uint8

const (
	answerNone       answer = iota // nothing: relayed already, or no one to answer
	answerEntry                    // the cached entry (a cache hit, a fallback)
	answerError                    // the error status, or the stale copy when the route falls back
	answerBadRequest               // 400, the connection closed: the client's body was malformed
)

// exit is how an exchange along a route ended. serve builds one at each
// of its exits and hands it to Proxy.exit, the one place that settles it.
type exit struct {
	wk      *pool.Worker // the worker checked out, or nil
	start   time.Time    // when the exchange with wk began
	breaker verdict
	write   answer
	status  int    // the status counted; 0 counts nothing (the pool closed: the request is retried)
	origin  string // who answered (the Origin constants)
	entry   *cache.Entry
	reason  string // the fallback reason written with entry ("" for a cache hit)
	key     string // the cache key, for answerError's fallback ("" when none)
	cause   error  // what failed, for answerError
}

// exit settles x, in this order: the worker goes back to its pool and
// the upstream time is observed, the breaker is told, the answer not yet
// relayed is written, and the answer is counted. It reports whether the
// request was answered (false only for a pool closed by a reload).
func (p *Proxy) exit(w http.ResponseWriter, rt *generation, rte *route, x exit) bool {
	if x.wk != nil {
		elapsed := time.Since(x.start)
		rte.pool.p.Checkin(x.wk)
		rte.stats.upstream.Observe(elapsed)
	}
	if rte.breaker != nil {
		switch x.breaker {
		case verdictForget:
			rte.breaker.Forget()
		case verdictOK, verdictFailed:
			rte.breaker.Record(x.breaker == verdictFailed)
		}
	}
	switch x.write {
	case answerEntry:
		writeEntry(w, x.entry, rt.cache.Now(), x.origin, x.reason)
		x.status = x.entry.Status
	case answerError:
		x.status, x.origin = p.fail(w, rt, rte, x.key, x.status, x.origin, x.cause)
	case answerBadRequest:
		// The client's fault, not the upstream's: its framing can no
		// longer be trusted, the connection closes.
		w.Header().Set("Connection", "close")
		w.Header().Set(HeaderOrigin, OriginBadRequest)
		http.Error(w, "loadlab proxy: malformed request body", http.StatusBadRequest)
		x.status, x.origin = http.StatusBadRequest, OriginBadRequest
	}
	if x.status == 0 {
		return false
	}
	rte.stats.count(x.status, x.origin)
	return true
}

// relayed is the exit of an answer relayed to the client: status its
// status, copyErr the error relaying its body. An error status, or a body
// that outlived the request timeout, is a failure for the breaker.
func relayed(wk *pool.Worker, start, deadline time.Time, status int, copyErr error) exit {
	failed := breaker.IsError(status)
	if copyErr != nil && (!time.Now().Before(deadline) || isTimeout(copyErr)) {
		failed = true // the body outlived the request timeout
	}
	v := verdictOK
	if failed {
		v = verdictFailed
	}
	return exit{wk: wk, start: start, breaker: v, status: status, origin: OriginUpstream}
}

// fail serves the stale copy of key when the route allows fallbacks, or the
// error status with a body naming the route, its upstream and the cause;
// upstream errors are logged too (see errlog.go). It returns the status
// and origin written.
func (p *Proxy) fail(w http.ResponseWriter, rt *generation, rte *route, key string, status int, origin string, cause error) (int, string) {
	if origin == OriginUpstreamError {
		rte.errlog.note(p.opts.Logf, rte.cfg.Name, rte.cfg.Upstream, cause)
	}
	if rte.cfg.Fallback && key != "" {
		if e, ok := rt.cache.Get(key); ok {
			writeEntry(w, e, rt.cache.Now(), OriginFallback, origin)
			return e.Status, OriginFallback
		}
	}
	w.Header().Set(HeaderOrigin, origin)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "private, no-cache")
	w.WriteHeader(status)
	fmt.Fprintf(w, "loadlab proxy: %s on route %s (upstream %s): %v\n", strings.ReplaceAll(origin, "_", " "), rte.cfg.Name, rte.cfg.Upstream, cause)
	return status, origin
}
