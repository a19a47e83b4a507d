package http1

import (
	"errors"
	"time"

	"github.com/loadlab/loadlab/internal/harvest"
	"github.com/loadlab/loadlab/internal/targets"
)

// leanWorker is one session's lean-client state.
type leanWorker struct {
	l      *leanClient
	wbuf   []byte
	static map[*targets.Target]*leanTarget
	status map[string]string // interned status lines
}

// leanTarget is the precomputed request of a target without templates.
type leanTarget struct {
	ok   bool   // false: not for the lean client
	addr string // host:port to dial
	req  []byte // the whole request, head and body
	body int    // body length
}

func (l *leanClient) newWorker() *leanWorker {
	return &leanWorker{l: l, static: map[*targets.Target]*leanTarget{}, status: map[string]string{}}
}

// maxStaticCache bounds the per-worker cache of precomputed requests (lazy
// target streams produce new targets without end).
const maxStaticCache = 4096

// do sends t if it is a plain http:// request; it returns false, having
// done nothing, when net/http must handle it.
func (lw *leanWorker) do(w *Session, t *targets.Target, seq uint64, r *Exchange) bool {
	var addr string
	var req []byte
	var bodyLen int
	if t.URL.Static() && t.StaticHeader() != nil && (t.Body == nil || t.Body.Static()) {
		lt := lw.static[t]
		if lt == nil {
			lt = lw.prepare(t)
			if len(lw.static) >= maxStaticCache {
				clear(lw.static)
			}
			lw.static[t] = lt
		}
		if !lt.ok {
			return false
		}
		addr, req, bodyLen = lt.addr, lt.req, lt.body
	} else {
		w.url = t.URL.AppendSession(w.url[:0], w.rng, w.o.Seed, seq, targets.PartURL, w.Vars)
		host, path, ok := splitHTTPURL(w.url)
		if !ok || !sendableAsIs(path) {
			return false // net/http escapes it or refuses it
		}
		var bad string
		lw.wbuf, bad = lw.appendHead(lw.wbuf[:0], w, t, seq, host, path)
		if bad != "" {
			w.sentNow(r)
			r.Error = lw.errorText(t, errors.New(bad))
			return true
		}
		start := len(lw.wbuf)
		if t.Body != nil {
			lw.wbuf = t.Body.AppendSession(lw.wbuf, w.rng, w.o.Seed, seq, targets.PartBody, w.Vars)
		}
		bodyLen = len(lw.wbuf) - start
		lw.wbuf = fixContentLength(lw.wbuf, start, bodyLen, t.Body != nil)
		req = lw.wbuf
		addr = hostAddr(host)
	}
	r.BytesOut = uint64(bodyLen)
	lw.roundTrip(w, t, addr, req, r, 0)
	return true
}

// errStale marks a failure on a reused connection before any response byte.
var errStale = errors.New("stale keep-alive connection")

// roundTrip sends req on the worker's connection to addr and reads the
// response into r, following redirects as Options.Redirects says.
func (lw *leanWorker) roundTrip(w *Session, t *targets.Target, addr string, req []byte, r *Exchange, hops int) {
	o := lw.l.opts
	if hops == 0 {
		w.sentNow(r)
	}
	var err error
	var arrived time.Time // kernel receive time of the answer, when known
	for {
		var c *leanConn
		c, err = lw.l.get(w.ctx, addr)
		if err != nil {
			break
		}
		if o.Timeout > 0 && c.deadline.Before(r.Sent.Add(o.Timeout)) {
			// Re-arm the deadline only when it is too close: a request may
			// time out up to deadlineSlack late, but the timer is not
			// touched on every request.
			c.deadline = r.Sent.Add(o.Timeout + deadlineSlack(o.Timeout))
			_ = c.c.SetDeadline(c.deadline)
		}
		var loc []byte
		loc, err = lw.exchange(w, c, t, req, r)
		arrived = harvest.Received(c.c) // before put: then another worker may use c
		if errors.Is(err, errStale) {
			// The server closed this idle connection: retry on the next
			// idle one, at last on a fresh one (whose failures are not stale).
			lw.l.discard(c)
			continue
		}
		if err != nil || !o.KeepAlive {
			lw.l.discard(c)
		} else {
			lw.l.put(addr, c)
		}
		if err == errCloseAfter {
			err = nil
		}
		if err == nil && loc != nil {
			r.Latency = 0
			lw.redirect(w, t, addr, req, loc, r, hops)
			return
		}
		break
	}
	if err == nil && !arrived.IsZero() {
		r.Latency = max(arrived.Sub(r.Sent), 0)
	} else {
		r.Latency = time.Since(r.Sent)
	}
	if err != nil {
		r.Code = 0
		r.Error = lw.errorText(t, err)
	}
}
