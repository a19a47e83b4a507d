package leanserver

import (
	"sync/atomic"
)

// A request whose handler waits on its context is watched for its client
// going away once it has run watchDelay. Where the server has a hangup
// watch (Linux: hangup_linux.go), the connection then joins the server's
// epoll set, once, and stays in it: from then on each of its requests is
// watched from its start, a client that closes is reported by the kernel
// at once, and a client that stays costs nothing per request (no timer,
// no goroutine, no read, no system call). Elsewhere, or when the
// connection cannot join, each request that outlives the delay is watched
// by a read of the connection (reqCtx.watch).

// noHangupWatch makes servers watch by reads only (tests of that path).
var noHangupWatch atomic.Bool

// hangupWatch returns the server's hangup watch, made on first use; nil
// when there is none.
func (s *leanServer) hangupWatch() *hangupWatch {
	s.hangupOnce.Do(func() {
		if noHangupWatch.Load() {
			return
		}
		if w, err := newHangupWatch(); err == nil {
			s.hangup = w
		}
	})
	return s.hangup
}

// joinHangupWatch puts c in its server's hangup watch, once: false when
// it is not there (no watch, or it could not join).
func (c *serverConn) joinHangupWatch() bool {
	if c.hangupID.Load() != 0 {
		return true
	}
	if c.hangupTried || c.srv == nil || c.raw == nil {
		return false
	}
	c.hangupTried = true
	w := c.srv.hangupWatch()
	return w != nil && w.add(c) == nil
}

// leaveHangupWatch takes c out of its server's hangup watch, if in it, as
// it closes or (handed) is handed over.
func (c *serverConn) leaveHangupWatch(handed bool) {
	if c.hangupID.Load() != 0 {
		c.srv.hangup.remove(c, handed)
	}
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
	if !r.c.peerGone() {
		return
	}
	r.mu.Lock()
	if !r.ended {
		r.cancelLocked()
	}
	r.mu.Unlock()
}
