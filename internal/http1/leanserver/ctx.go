package leanserver

import (
	"context"
	"sync"
	"time"
)

// watchDelay is how long a request may run, once its handler asked for the
// context's Done channel (or an AfterFunc), before its client is watched
// for going away: a client that leaves later is noticed at once, one that
// leaves sooner at the end of the delay. Most answers (a proxy in front of
// a fast upstream) are sent before it ends: they then cost a timer,
// stopped. A stopped timer still wakes the runtime's poller at its time
// (it stays in the timer heap until then), so the delay bounds how often a
// busy server wakes for nothing: at 1 ms, up to a thousand times a second,
// which cost 9-11% of the proxy's CPU at 2,000 requests a second
// (bench/README.md, proxy); at 10 ms a hundred. When the delay passes the
// connection joins the server's hangup watch (hangup.go) and needs no
// delay, timer or watcher for any later request; where it cannot, the
// request gets a watcher (a goroutine's read, reqCtx.watch).
const watchDelay = 10 * time.Millisecond

// reqCtx is a lean request's context. It carries the connection's values;
// its Done channel exists only once asked for (Done). It is cancelled when
// the client goes away (its end closed with nothing left to read, or the
// connection failed), as by net/http's background read, but only for
// handlers that wait on it: on a connection in the server's hangup watch
// from the request's start (hangup.go); else, once a handler waits on it
// (Done or AfterFunc) and watchDelay later, by a goroutine's read of the
// connection (the watcher). As net/http's, that read starts only once the
// request body has been read to its end (it would take the body's bytes
// otherwise), and not while the handler waits in Sleep (which reads the
// connection itself). Bytes it reads (a pipelined request) are kept for
// the connection.
type reqCtx struct {
	context.Context
	c *serverConn

	mu     sync.Mutex
	done   chan struct{} // nil until asked for
	err    error
	afters []afterFunc // AfterFunc callbacks not yet run or stopped
	// afterBuf holds the first afters (a handler registers one or two):
	// no slice to allocate for them.
	afterBuf [2]afterFunc
	afterIDs uint32
	armed    bool          // the watch delay started (the connection's watch timer)
	armedAt  time.Time     // when
	due      bool          // watchDelay passed since armed
	body     bool          // the request body is not read to its end yet
	asleep   bool          // the handler is in Sleep
	ended    bool          // stop began: no watcher from now on
	watched  chan struct{} // closed when the watcher returned; nil if none
	// extra is what the watcher read (a pipelined or the next request),
	// extraAt when it came and extraErr the read's error.
	extra    []byte
	extraAt  time.Time
	extraErr error
	gone     bool // the client went away (set by stop or Sleep)
	// received is when the request's head reached the server.
	received time.Time
}

// Received is when the request's head reached the server (the kernel's
// receive time on Linux): latencies are measured from it.
func (r *reqCtx) Received() time.Time { return r.received }

func (r *reqCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

func (r *reqCtx) Done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armLocked()
	if r.done == nil {
		r.done = make(chan struct{})
		if r.err != nil {
			close(r.done)
		}
	}
	return r.done
}

// afterFunc is a callback of AfterFunc, with the id its stop looks for.
type afterFunc struct {
	id uint32
	f  func()
}

func (r *reqCtx) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// AfterFunc runs f in its own goroutine once the client went away. Its
// stop reports whether it kept f from running. With it, context.WithTimeout
// and context.AfterFunc on a lean request cost no goroutine of their own
// (see the afterFuncer case of context's propagateCancel).
func (r *reqCtx) AfterFunc(f func()) (stop func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armLocked()
	if r.err != nil {
		go f()
		return func() bool { return false }
	}
	if r.afters == nil {
		r.afters = r.afterBuf[:0]
	}
	r.afterIDs++
	id := r.afterIDs
	r.afters = append(r.afters, afterFunc{id, f})
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, g := range r.afters {
			if g.id == id {
				n := len(r.afters) - 1
				copy(r.afters[i:], r.afters[i+1:])
				r.afters[n] = afterFunc{} // keep f no longer than needed
				r.afters = r.afters[:n]
				return true
			}
		}
		return false
	}
}

// armLocked starts the watch delay, once, on the connection's watch timer
// (one per connection, reset per request, rather than a timer per
// request).
func (r *reqCtx) armLocked() {
	if r.armed {
		return
	}
	r.armed = true
	if r.err != nil || r.ended {
		return
	}
	c := r.c
	// The kernel watches the connection; a keep-alive connection (its
	// second request on) joins at once: no timer for any of its requests.
	if c.hangupKey.Load() != 0 || (c.served > 1 && c.joinHangupWatch()) {
		return
	}
	r.armedAt = time.Now()
	c.watchReq.Store(r)
	if t := c.watchTimer.Load(); t != nil {
		t.Reset(watchDelay)
	} else {
		c.watchTimer.Store(time.AfterFunc(watchDelay, c.watchDue))
	}
}

// watchDue runs when the connection's watch timer fires: the watch delay
// of its request passed. The connection joins the hangup watch, or the
// request gets a watcher. A timer that fired for an earlier request (its
// stop came too late to stop it) finds a request armed less than
// watchDelay ago, and waits for the rest of it.
func (c *serverConn) watchDue() {
	r := c.watchReq.Load()
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return
	}
	if left := watchDelay - time.Since(r.armedAt); left > 0 {
		c.watchTimer.Load().Reset(left) // set: it was armed before r
		r.mu.Unlock()
		return
	}
	r.due = true
	if c.joinHangupWatch() { // the kernel watches from now on
		r.mu.Unlock()
		return
	}
	watched := r.dueLocked()
	r.mu.Unlock()
	if watched != nil {
		r.watch(watched) // in the timer's own goroutine: none to start
	}
}

// startLocked starts the watcher if it is due and nothing else reads the
// connection.
func (r *reqCtx) startLocked() {
	if watched := r.dueLocked(); watched != nil {
		go r.watch(watched)
	}
}

// dueLocked reports, with the channel its end will close, that the
// watcher is to run now: it is due and nothing else reads the connection.
func (r *reqCtx) dueLocked() chan struct{} {
	if !r.due || r.body || r.asleep || r.ended || r.watched != nil || r.err != nil {
		return nil
	}
	r.watched = make(chan struct{})
	return r.watched
}

// bodyRead says the request body has been read to its end.
func (r *reqCtx) bodyRead() {
	r.mu.Lock()
	if r.body {
		r.body = false
		r.startLocked()
	}
	r.mu.Unlock()
	if r.c.hangupSeen.Load() { // the client closed after its body
		r.checkHangup()
	}
}

// cancelLocked ends the context: the client went away.
func (r *reqCtx) cancelLocked() {
	if r.err != nil {
		return
	}
	r.err = context.Canceled
	if r.done != nil {
		close(r.done)
	}
	for _, a := range r.afters {
		go a.f()
	}
	r.afters = nil
}

func (r *reqCtx) watch(watched chan struct{}) {
	defer close(watched)
	c := r.c
	if c.watchBuf == nil {
		c.watchBuf = make([]byte, watchRead)
	}
	n, at, err := c.watchReadInto(c.watchBuf)
	r.mu.Lock()
	r.extra, r.extraErr, r.extraAt = c.watchBuf[:n], err, at
	if err != nil && !c.watchStop {
		r.cancelLocked()
	}
	r.mu.Unlock()
}

// stop ends the watch delay and the watcher, if any. With handOver (the
// connection goes on to its next request), a watcher's read in progress
// is left to be the next request's first read (readHead takes what it
// brings): no deadline to break it off, no wake-up, no read of the
// connection's own that finds nothing yet. Else the watcher is broken
// off, and what it read is given back.
func (r *reqCtx) stop(handOver bool) {
	r.c.inFlight.Store(nil)
	r.mu.Lock()
	r.ended = true
	if r.armed && r.c.watchReq.Load() == r {
		r.c.watchTimer.Load().Stop()
		r.c.watchReq.Store(nil)
	}
	watched := r.watched
	if watched == nil {
		r.gone = r.gone || r.err != nil
		r.mu.Unlock()
		return
	}
	r.c.watchStop = true
	if handOver {
		r.gone = r.gone || r.err != nil
		r.c.watcher = r
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	_ = r.c.nc.SetReadDeadline(time.Unix(1, 0))
	<-watched
	r.mu.Lock()
	r.c.watchStop = false
	r.gone = r.gone || r.err != nil
	r.mu.Unlock()
	_ = r.c.nc.SetReadDeadline(time.Time{})
	r.c.buf = append(r.c.buf, r.extra...)
}
