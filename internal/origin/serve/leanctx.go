package serve

import (
	"context"
	"sync"
	"time"
)

// reqCtx is a lean request's context. It carries the connection's values;
// its Done channel exists only once asked for: then a goroutine reads the
// connection and closes it when the client goes away (EOF or error), as
// net/http's background read does, but only for handlers that wait on it.
// Bytes it reads (a pipelined request) are kept for the connection.
type reqCtx struct {
	context.Context
	c *leanConn

	once    sync.Once
	done    chan struct{}
	watched chan struct{} // closed when the watcher returned
	mu      sync.Mutex
	err     error
	extra   []byte
	gone    bool // the client went away (set by stop)
	// received is when the request's head reached the server.
	received time.Time
}

// Received is when the request's head reached the server (the kernel's
// receive time on Linux): latencies are measured from it.
func (r *reqCtx) Received() time.Time { return r.received }

func (r *reqCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

func (r *reqCtx) Done() <-chan struct{} {
	r.once.Do(func() {
		r.done = make(chan struct{})
		r.watched = make(chan struct{})
		go r.watch()
	})
	return r.done
}

func (r *reqCtx) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *reqCtx) watch() {
	defer close(r.watched)
	p := make([]byte, 1024)
	n, err := r.c.nc.Read(p)
	r.mu.Lock()
	r.extra = p[:n]
	if err != nil && !r.stopping() {
		r.err = context.Canceled
		close(r.done)
	}
	r.mu.Unlock()
}

// stopping is true once stop began (the read then ended by the deadline).
func (r *reqCtx) stopping() bool { return r.c.watchStop }

// stop ends the watcher, if any, and gives back what it read.
func (r *reqCtx) stop() {
	r.once.Do(func() {}) // no watcher from now on
	if r.watched == nil {
		return
	}
	r.mu.Lock()
	r.c.watchStop = true
	r.mu.Unlock()
	_ = r.c.nc.SetReadDeadline(time.Unix(1, 0))
	<-r.watched
	r.c.watchStop = false
	_ = r.c.nc.SetReadDeadline(time.Time{})
	r.gone = r.err != nil
	r.c.buf = append(r.c.buf, r.extra...)
}
