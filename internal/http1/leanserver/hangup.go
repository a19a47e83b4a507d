package leanserver

import (
	"sync/atomic"
	"syscall"

	"github.com/loadlab/loadlab/internal/hangup"
)

// A request whose handler waits on its context is watched for its client
// going away once it has run watchDelay. Where the server has a hangup
// watch (package hangup: Linux's epoll), the connection then joins it,
// once (a connection's second such request joins it at once: a
// keep-alive connection pays no timer per request), and stays in it: from then on each of its requests is
// watched from its start, a client that closes is reported by the kernel
// at once, and a client that stays costs nothing per request (no timer,
// no goroutine, no read, no system call). Elsewhere, or when the
// connection cannot join, each request that outlives the delay is watched
// by a read of the connection (reqCtx.watch).

// noHangupWatch makes servers watch by reads only (tests of that path).
var noHangupWatch atomic.Bool

// hangupWatch returns the server's hangup watch, made on first use; nil
// when there is none.
func (s *leanServer) hangupWatch() *hangup.Watch {
	s.hangupOnce.Do(func() {
		if noHangupWatch.Load() {
			return
		}
		if w, err := hangup.New(); err == nil {
			s.hangup = w
		}
	})
	return s.hangup
}

// joinHangupWatch puts c in its server's hangup watch, once: false when
// it is not there (no watch, or it could not join).
func (c *serverConn) joinHangupWatch() bool {
	if c.hangupKey.Load() != 0 {
		return true
	}
	if c.hangupTried || c.srv == nil || c.raw == nil {
		return false
	}
	c.hangupTried = true
	w := c.srv.hangupWatch()
	sc, ok := c.nc.(syscall.Conn)
	if w == nil || !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	c.hangupRC = rc // before Add: the watch's goroutine reads it
	key, err := w.Add(rc, c.hangup)
	if err != nil {
		return false
	}
	c.hangupKey.Store(key)
	return true
}

// leaveHangupWatch takes c out of its server's hangup watch, if in it, as
// it closes or (handed) is handed over.
func (c *serverConn) leaveHangupWatch(handed bool) {
	key := c.hangupKey.Load()
	if key == 0 {
		return
	}
	var open syscall.RawConn // a handed connection stays open
	if handed {
		open = c.hangupRC
	}
	c.srv.hangup.Remove(key, open)
}

// hangup is the hangup watch's news that the client's end of c closed:
// the request in progress, if any, is checked (and later ones, as they
// start: see reqCtx.checkHangup's callers).
func (c *serverConn) hangup() {
	c.hangupSeen.Store(true)
	if r := c.inFlight.Load(); r != nil {
		r.checkHangup()
	}
}

// checkHangup cancels r if its client is gone: its end of the connection
// closed with nothing left to read, or the connection failed. A request
// the client sent before closing is not its leaving (it is still read and
// answered), as with a watcher's read, which would have read it.
func (r *reqCtx) checkHangup() {
	if !hangup.PeerGone(r.c.hangupRC) {
		return
	}
	r.mu.Lock()
	if !r.ended {
		r.cancelLocked()
	}
	r.mu.Unlock()
}
