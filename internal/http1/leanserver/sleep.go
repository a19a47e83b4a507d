package leanserver

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/hangup"
)

// A handler that waits out a latency on the lean server does it with
// reqCtx.Sleep: a read of the connection with a deadline, in the
// connection's own goroutine. It ends at the deadline (the latency is
// over), at EOF or an error (the client went away), or when stop closes.
// That is one wait in the runtime poller per answer, where a timer plus
// the context's watcher goroutine (ctx.Done) take a goroutine start and
// three more wake-ups of the scheduler.

// leanServer is what a lean server's connections share.
type leanServer struct {
	mu    sync.Mutex
	conns map[*serverConn]struct{}
	done  chan struct{} // closed when the server ended
	// stops are the stop channels of sleeps that have a watcher.
	stops sync.Map
	// hangup is the watch of the clients' ends (see hangupWatch), made
	// once, when a request first waits on its context; nil if none.
	hangup     *hangup.Watch
	hangupOnce sync.Once
}

// watchStop makes sure that when stop closes, the connections sleeping on
// it wake up: one goroutine per stop channel (per simulator), not per
// request.
func (s *leanServer) watchStop(stop <-chan struct{}) {
	if _, ok := s.stops.Load(stop); ok {
		return
	}
	if _, loaded := s.stops.LoadOrStore(stop, struct{}{}); loaded {
		return
	}
	go func() {
		select {
		case <-stop:
		case <-s.done:
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for c := range s.conns {
			c.mu.Lock()
			if c.sleepStop == stop {
				_ = c.nc.SetReadDeadline(time.Now())
			}
			c.mu.Unlock()
		}
	}()
}

// Sleep waits d unless the client goes away or stop closes; it reports
// whether d passed. Bytes the client sends meanwhile (a pipelined request)
// are kept for the connection; after them the wait goes on with a timer.
func (r *reqCtx) Sleep(d time.Duration, stop <-chan struct{}) bool {
	c := r.c
	r.mu.Lock()
	if c.srv == nil || c.raw == nil || r.watched != nil || r.err != nil {
		r.mu.Unlock()
		return r.sleepTimer(d, stop)
	}
	r.asleep = true // no watcher while this reads the connection
	r.mu.Unlock()
	c.srv.watchStop(stop)
	end := time.Now().Add(d)
	c.mu.Lock()
	select {
	case <-stop:
		c.mu.Unlock()
		r.wake(false)
		return false
	default:
	}
	c.sleepStop = stop
	_ = c.nc.SetReadDeadline(end)
	c.mu.Unlock()
	var n int
	var err error
	if len(c.buf) < cap(c.buf) {
		n, err = c.rw.Read(c.buf[len(c.buf):cap(c.buf)])
	}
	c.mu.Lock()
	c.sleepStop = nil
	c.mu.Unlock()
	_ = c.nc.SetReadDeadline(time.Time{})
	gone := n == 0 && err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
	r.wake(gone)
	switch {
	case n > 0 || err == nil: // a pipelined request (or no room to read into)
		c.buf = c.buf[:len(c.buf)+n]
		return r.sleepTimer(time.Until(end), stop)
	case errors.Is(err, os.ErrDeadlineExceeded):
		select {
		case <-stop:
			return false
		default:
		}
		if time.Now().Before(end) { // woken early, but stop is open: go on
			return r.sleepTimer(time.Until(end), stop)
		}
		return true
	default: // EOF or an error: the client went away (see wake)
		return false
	}
}

// wake ends Sleep's read of the connection: the context is cancelled if
// the client went away, else a watcher that came due meanwhile starts.
func (r *reqCtx) wake(gone bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asleep = false
	if gone {
		r.gone = true
		r.cancelLocked()
		return
	}
	r.startLocked()
}

// sleepTimer waits d on a timer; false when stop closed first.
func (r *reqCtx) sleepTimer(d time.Duration, stop <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-r.Done():
		return false
	}
}
