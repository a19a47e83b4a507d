package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/http1/leanserver"
	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/cache"
	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// Limits on what clients send: request heads beyond MaxHeaderBytes are
// answered 431 (by the server, for every path), and bodies sent to the
// reserved /metrics and /status beyond MaxReservedBody 413.
const (
	MaxHeaderBytes  = 64 << 10
	MaxReservedBody = 64 << 10
)

// Response headers the proxy adds.
const (
	HeaderOrigin         = "X-Loadlab-Origin"          // who answered: see the Origin constants
	HeaderFallback       = "X-Loadlab-Fallback"        // "stale" (or "fresh") on fallbacks
	HeaderFallbackReason = "X-Loadlab-Fallback-Reason" // what failed: pool_timeout, breaker, upstream_error
)

// ServeHTTP serves /metrics and /status, and forwards everything else along
// the first matching route.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/metrics", "/status":
		// Reserved paths read no body: one beyond the limit is refused.
		body := http.MaxBytesReader(w, r.Body, MaxReservedBody)
		if _, err := io.Copy(io.Discard, body); err != nil || r.ContentLength > MaxReservedBody {
			http.Error(w, "loadlab proxy: "+r.URL.Path+" takes no body (at most 64 KiB is read)", http.StatusRequestEntityTooLarge)
			return
		}
	}
	switch r.URL.Path {
	case "/metrics":
		p.metrics.ServeHTTP(w, r)
		return
	case "/status":
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(p.Status())
		return
	}
	p.received.Add(1)
	if !p.readBody(w, r) {
		return
	}
	p.forward(w, inbound{r: r, path: r.URL.Path})
}

// ServeRaw serves a request the lean server hands as it read it
// (leanserver.RawHandler): a GET or HEAD without a body, its path plain and not
// reserved, is forwarded from its head as read (no http.Request made
// unless the exchange needs one); any other is served by ServeHTTP.
func (p *Proxy) ServeRaw(w http.ResponseWriter, raw *leanserver.RawRequest) {
	path, plain := raw.Path()
	if m := raw.Method(); !plain || p.opts.ObjectPath || raw.ContentLength() != 0 ||
		(m != http.MethodGet && m != http.MethodHead) || path == "/metrics" || path == "/status" {
		p.ServeHTTP(w, raw.Request())
		return
	}
	p.received.Add(1)
	p.forward(w, inbound{raw: raw, path: path})
}

// forward forwards in along the first route matching its path.
func (p *Proxy) forward(w http.ResponseWriter, in inbound) {
	for attempt := 0; ; attempt++ {
		rt := p.rt.Load()
		rte := rt.match(in.path)
		if rte == nil {
			p.noRoute.Add(1)
			w.Header().Set(HeaderOrigin, OriginNoRoute)
			http.Error(w, "loadlab proxy: no route for "+in.path, http.StatusNotFound)
			return
		}
		// A pool closed by a reload between Load and Checkout: retry on
		// the new generation.
		if !p.serve(w, in, rt, rte) && attempt < 3 {
			continue
		}
		return
	}
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// serve forwards in along rte: a raw head by the byte path (bytepath.go),
// an http.Request by the object path. It returns false, having written
// nothing, if rte's pool was closed by a reload.
func (p *Proxy) serve(w http.ResponseWriter, in inbound, rt *generation, rte *route) bool {
	rc := rte.cfg
	key := ""
	if in.method() == http.MethodGet && (rc.Cache || rc.Fallback) {
		key = rc.Name + " " + in.requestURI()
	}
	if key != "" && rc.Cache {
		if e, ok := rt.cache.Get(key); ok && e.Fresh(rt.cache.Now()) {
			writeEntry(w, e, rt.cache.Now(), OriginCache, "")
			rte.stats.count(e.Status, OriginCache)
			return true
		}
	}
	if rte.breaker != nil && !rte.breaker.Allow() {
		p.fail(w, rt, rte, key, rc.Breaker.Status, OriginBreaker, errBreakerOpen)
		return true
	}
	wk, _, err := rte.pool.p.Checkout(in.context())
	switch {
	case errors.Is(err, pool.ErrClosed):
		rte.forget()
		return false
	case errors.Is(err, pool.ErrTimeout):
		rte.record(true)
		p.fail(w, rt, rte, key, rte.pool.cfg.TimeoutStatus, OriginPoolTimeout, err)
		return true
	case err != nil: // the client went away while waiting
		rte.forget()
		rte.stats.count(499, OriginClientGone)
		return true
	}
	// The request timeout is the upstream connection's deadline
	// (RoundTripUntil), not a context: no timer and no context of its own
	// per request; the client's context still breaks the exchange off.
	start := time.Now()
	deadline := start.Add(rc.RequestTimeout.D())
	var resp *http.Response
	var sent *clientBody
	hw, bytePath := w.(leanserver.HeadWriter)
	if bytePath = bytePath && in.raw != nil; bytePath {
		var ans *pool.Answer
		// A route that caches or falls back reads every answer as a
		// response (its header decides what is stored).
		if resp, ans, bytePath, err = forwardBytes(w, hw, in, rte, wk, deadline, key == ""); ans != nil {
			p.settle(rte, wk, start, deadline, ans.Status, err)
			return true
		}
	}
	if !bytePath {
		out := outRequest(in.request(), rte)
		if out.Body != nil {
			sent = &clientBody{rc: out.Body}
			out.Body = sent
		}
		resp, err = wk.RoundTripUntil(out, deadline)
	}
	if err != nil {
		rte.pool.p.Checkin(wk)
		rte.stats.upstream.Observe(time.Since(start))
		if in.context().Err() != nil {
			rte.forget()
			rte.stats.count(499, OriginClientGone)
			return true
		}
		if sent != nil && sent.err != nil {
			// The client's fault, not the upstream's: 400, and the
			// connection closes (its framing can no longer be trusted).
			rte.forget()
			w.Header().Set("Connection", "close")
			w.Header().Set(HeaderOrigin, OriginBadRequest)
			http.Error(w, "loadlab proxy: malformed request body", http.StatusBadRequest)
			rte.stats.count(http.StatusBadRequest, OriginBadRequest)
			return true
		}
		rte.record(true)
		status := http.StatusBadGateway
		if errors.Is(err, context.DeadlineExceeded) || !time.Now().Before(deadline) {
			status = http.StatusGatewayTimeout
		}
		if rc.ErrorStatus != 0 {
			status = rc.ErrorStatus
		}
		p.fail(w, rt, rte, key, status, OriginUpstreamError, err)
		return true
	}
	failed := breaker.IsError(resp.StatusCode)
	if failed && rc.Fallback && key != "" {
		if e, ok := rt.cache.Get(key); ok {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			rte.pool.p.Checkin(wk)
			rte.stats.upstream.Observe(time.Since(start))
			rte.record(true)
			writeEntry(w, e, rt.cache.Now(), OriginFallback, OriginUpstreamError)
			rte.stats.count(e.Status, OriginFallback)
			return true
		}
	}
	h := w.Header()
	copyHeader(h, resp.Header)
	h.Set(HeaderOrigin, OriginUpstream)
	var maxAge time.Duration
	store := false
	if key != "" { // only routes that cache or fall back parse Cache-Control
		maxAge, store = cache.MaxAge(in.method(), resp.StatusCode, resp.Header)
		store = store && resp.ContentLength <= int64(rt.cfg.Cache.MaxBodyBytes)
	}
	w.WriteHeader(resp.StatusCode)
	// Only Write, never the writer's ReadFrom: ReadFrom is for files
	// (sendfile) and may send the head in a write of its own; through
	// Write, head and body leave together, copied through the pooled
	// buffer.
	var tee *limitedTee
	var dst io.Writer = w
	if store {
		tee = &limitedTee{w: w, buf: new(bytes.Buffer), max: rt.cfg.Cache.MaxBodyBytes}
		dst = tee
	}
	bp := bufPool.Get().(*[]byte)
	copyErr := copyBody(dst, resp.Body, *bp)
	bufPool.Put(bp)
	resp.Body.Close()
	p.settle(rte, wk, start, deadline, resp.StatusCode, copyErr)
	if store && copyErr == nil && !tee.over {
		rt.cache.Put(key, &cache.Entry{
			Status: resp.StatusCode, Header: storedHeader(resp.Header), Body: tee.buf.Bytes(),
			Stored: rt.cache.Now(), MaxAge: maxAge,
		})
	}
	return true
}

// settle ends an exchange whose answer (status) was relayed, copyErr the
// error relaying its body: the worker goes back, the upstream time is
// observed, the breaker fed (an error status, or a body that outlived the
// request timeout, is a failure) and the answer counted.
func (p *Proxy) settle(rte *route, wk *pool.Worker, start, deadline time.Time, status int, copyErr error) {
	elapsed := time.Since(start)
	rte.pool.p.Checkin(wk)
	rte.stats.upstream.Observe(elapsed)
	failed := breaker.IsError(status)
	if copyErr != nil && (!time.Now().Before(deadline) || isTimeout(copyErr)) {
		failed = true // the body outlived the request timeout
	}
	rte.record(failed)
	rte.stats.count(status, OriginUpstream)
}

// record feeds the route's breaker, if any.
func (rte *route) record(failed bool) {
	if rte.breaker != nil {
		rte.breaker.Record(failed)
	}
}

// forget releases the breaker admission of a request without outcome.
func (rte *route) forget() {
	if rte.breaker != nil {
		rte.breaker.Forget()
	}
}

// fail serves the stale copy of key when the route allows fallbacks, or the
// error status with a body naming the route, its upstream and the cause;
// upstream errors are logged too (see errlog.go).
func (p *Proxy) fail(w http.ResponseWriter, rt *generation, rte *route, key string, status int, origin string, cause error) {
	if origin == OriginUpstreamError {
		rte.errlog.note(p.opts.Logf, rte.cfg.Name, rte.cfg.Upstream, cause)
	}
	if rte.cfg.Fallback && key != "" {
		if e, ok := rt.cache.Get(key); ok {
			writeEntry(w, e, rt.cache.Now(), OriginFallback, origin)
			rte.stats.count(e.Status, OriginFallback)
			return
		}
	}
	w.Header().Set(HeaderOrigin, origin)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "private, no-cache")
	w.WriteHeader(status)
	fmt.Fprintf(w, "loadlab proxy: %s on route %s (upstream %s): %v\n", strings.ReplaceAll(origin, "_", " "), rte.cfg.Name, rte.cfg.Upstream, cause)
	rte.stats.count(status, origin)
}

// writeEntry serves a cached response.
func writeEntry(w http.ResponseWriter, e *cache.Entry, now time.Time, origin, reason string) {
	h := w.Header()
	for k, vs := range e.Header {
		h[k] = append([]string(nil), vs...)
	}
	h.Set("Age", strconv.Itoa(int(e.Age(now).Seconds())))
	h.Set(HeaderOrigin, origin)
	if origin == OriginFallback {
		if e.Fresh(now) {
			h.Set(HeaderFallback, "fresh")
		} else {
			h.Set(HeaderFallback, "stale")
		}
		h.Set(HeaderFallbackReason, reason)
	}
	h.Set("Content-Length", strconv.Itoa(len(e.Body)))
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.Body)
}

// outRequest builds the upstream request for r. It takes over r's header
// map rather than copying it (hop-by-hop fields removed, X-Forwarded-For
// added): nothing reads the client's header after this, and the copy was
// a map and a slice of values per field on every request.
func outRequest(r *http.Request, rte *route) *http.Request {
	out := new(http.Request)
	*out = *r // the context too
	u := *r.URL
	out.URL = &u
	out.RequestURI = ""
	out.URL.Scheme = rte.upstream.Scheme
	out.URL.Host = rte.upstream.Host
	if rte.upstream.Path != "" {
		out.URL.Path = rte.upstream.Path + r.URL.Path
		out.URL.RawPath = ""
	}
	out.Host = rte.upstream.Host
	out.Close = false
	if r.ContentLength == 0 {
		out.Body = nil
	}
	removeHopByHop(out.Header)
	if xff, ok := forwardedFor(out.Header["X-Forwarded-For"], r.RemoteAddr); ok {
		out.Header.Set("X-Forwarded-For", xff)
	}
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = noUserAgent // do not add Go's
	}
	return out
}

// noUserAgent is an empty User-Agent field: the request writer then sends
// none. Shared by every request (full, so an append copies it).
var noUserAgent = []string{""}

// copyHeader copies the end-to-end headers of src into dst. A field dst
// does not hold yet shares src's values (a response head's, read for this
// request and never changed in place) instead of copying them.
func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		if prior, ok := dst[k]; ok {
			dst[k] = append(prior, vs...)
		} else {
			dst[k] = vs[:len(vs):len(vs)]
		}
	}
	removeHopByHop(dst)
}

func storedHeader(src http.Header) http.Header {
	h := src.Clone()
	removeHopByHop(h)
	h.Del("Content-Length")
	h.Del("Age")
	return h
}

// clientBody is a request body forwarded upstream; it keeps the error
// reading it met, if any (the end of the body aside).
type clientBody struct {
	rc  io.ReadCloser
	err error
}

func (b *clientBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

func (b *clientBody) Close() error { return b.rc.Close() }

// copyBody copies src to dst through buf with dst's Write only (as
// io.CopyBuffer, without its WriterTo and ReaderFrom shortcuts, and
// without wrapping dst to hide them: no allocation per body).
func copyBody(dst io.Writer, src io.Reader, buf []byte) error {
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			m, werr := dst.Write(buf[:n])
			if werr != nil {
				return werr
			}
			if m < n {
				return io.ErrShortWrite
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// limitedTee writes to w and keeps up to max bytes in buf.
type limitedTee struct {
	w    io.Writer
	buf  *bytes.Buffer
	max  int
	over bool
}

func (t *limitedTee) Write(b []byte) (int, error) {
	if !t.over {
		if t.buf.Len()+len(b) > t.max {
			t.over = true
			t.buf.Reset()
		} else {
			t.buf.Write(b)
		}
	}
	return t.w.Write(b)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
