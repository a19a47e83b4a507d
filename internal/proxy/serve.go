package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
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
// an http.Request by the object path. Every way out is an exit settled by
// Proxy.exit (exit.go). It returns false, having written nothing, if rte's
// pool was closed by a reload.
func (p *Proxy) serve(w http.ResponseWriter, in inbound, rt *generation, rte *route) bool {
	rc := rte.cfg
	key := ""
	if in.method() == http.MethodGet && (rc.Cache || rc.Fallback) {
		key = rc.Name + " " + in.requestURI()
	}
	if key != "" && rc.Cache {
		if e, ok := rt.cache.Get(key); ok && e.Fresh(rt.cache.Now()) {
			return p.exit(w, rt, rte, exit{write: answerEntry, entry: e, origin: OriginCache})
		}
	}
	if rte.breaker != nil && !rte.breaker.Allow() {
		return p.exit(w, rt, rte, exit{write: answerError, key: key, status: rc.Breaker.Status, origin: OriginBreaker, cause: errBreakerOpen})
	}
	wk, _, err := rte.pool.p.Checkout(in.context())
	switch {
	case errors.Is(err, pool.ErrClosed):
		return p.exit(w, rt, rte, exit{breaker: verdictForget})
	case errors.Is(err, pool.ErrTimeout):
		return p.exit(w, rt, rte, exit{breaker: verdictFailed, write: answerError, key: key,
			status: rte.pool.cfg.TimeoutStatus, origin: OriginPoolTimeout, cause: err})
	case err != nil: // the client went away while waiting
		return p.exit(w, rt, rte, exit{breaker: verdictForget, status: 499, origin: OriginClientGone})
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
			return p.exit(w, rt, rte, relayed(wk, start, deadline, ans.Status, err))
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
		x := exit{wk: wk, start: start, breaker: verdictForget}
		switch {
		case in.context().Err() != nil:
			x.status, x.origin = 499, OriginClientGone
		case sent != nil && sent.err != nil:
			x.write = answerBadRequest
		default:
			x.breaker, x.write, x.key, x.origin, x.cause = verdictFailed, answerError, key, OriginUpstreamError, err
			x.status = http.StatusBadGateway
			if errors.Is(err, context.DeadlineExceeded) || !time.Now().Before(deadline) {
				x.status = http.StatusGatewayTimeout
			}
			if rc.ErrorStatus != 0 {
				x.status = rc.ErrorStatus
			}
		}
		return p.exit(w, rt, rte, x)
	}
	failed := breaker.IsError(resp.StatusCode)
	if failed && rc.Fallback && key != "" {
		if e, ok := rt.cache.Get(key); ok {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			return p.exit(w, rt, rte, exit{wk: wk, start: start, breaker: verdictFailed,
				write: answerEntry, entry: e, origin: OriginFallback, reason: OriginUpstreamError})
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
	p.exit(w, rt, rte, relayed(wk, start, deadline, resp.StatusCode, copyErr))
	if store && copyErr == nil && !tee.over {
		rt.cache.Put(key, &cache.Entry{
			Status: resp.StatusCode, Header: storedHeader(resp.Header), Body: tee.buf.Bytes(),
			Stored: rt.cache.Now(), MaxAge: maxAge,
		})
	}
	return true
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
