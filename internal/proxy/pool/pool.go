// Package pool is the proxy's upstream worker pool, modelled on poolboy as
// Belfrage uses it: Size persistent workers (each one keep-alive upstream
// connection), up to Overflow extra workers started on demand and dismissed
// when they are checked in with nobody waiting, and a FIFO queue of callers
// waiting at most CheckoutTimeout for a worker.
//
// Nothing here computes a latency: the queueing delays a proxy shows when
// its pool runs dry come from callers really waiting for workers.
package pool

import (
	"container/list"
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// ErrTimeout is returned by Checkout when no worker became free within the
// checkout timeout.
var ErrTimeout = errors.New("pool checkout timeout")

// ErrClosed is returned by Checkout on a closed pool.
var ErrClosed = errors.New("pool closed")

// Config sizes a pool.
type Config struct {
	Name            string        // label in metrics and status
	Size            int           // persistent workers (keep-alive connections)
	Overflow        int           // extra workers opened on demand, dismissed after use
	CheckoutTimeout time.Duration // longest wait for a worker
}

// Options are the pool's collaborators.
type Options struct {
	// Dial opens upstream connections; nil means a plain net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Stats receives the counters; nil makes a fresh one. Passing the same
	// Stats to a replacement pool keeps counters monotonic across reloads.
	Stats *Stats
	// Observe, if set, is called with every checkout's wait (successful or
	// not) outside the pool's lock.
	Observe func(wait time.Duration)
}

// Pool hands out workers. It is safe for concurrent use.
type Pool struct {
	cfg     Config
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	stats   *Stats
	observe func(time.Duration)

	mu       sync.Mutex
	idle     []*Worker // LIFO, as poolboy's default strategy
	busy     int       // workers checked out, overflow included
	overflow int       // overflow workers alive (always checked out)
	waiters  list.List // of *waiter, FIFO
	closed   bool
}

type waiter struct {
	ch     chan *Worker // buffered 1; receives the handed-over worker
	queued bool         // still in the queue (guarded by Pool.mu)
}

// New builds a pool with Size idle persistent workers. Workers connect
// lazily, on their first request.
func New(cfg Config, opts Options) *Pool {
	p := &Pool{cfg: cfg, dial: opts.Dial, stats: opts.Stats, observe: opts.Observe}
	if p.dial == nil {
		d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
		p.dial = d.DialContext
	}
	if p.stats == nil {
		p.stats = &Stats{}
	}
	p.idle = make([]*Worker, 0, cfg.Size)
	for i := 0; i < cfg.Size; i++ {
		p.idle = append(p.idle, p.newWorker(false))
	}
	return p
}

// Config returns the pool's configuration.
func (p *Pool) Config() Config { return p.cfg }

// Checkout returns a free worker, starting an overflow worker if all are busy
// and overflow is left, or else waits in FIFO order up to the checkout
// timeout. It returns ErrTimeout, ErrClosed or ctx's error on failure, and the
// time spent waiting in every case. The worker must be given back with
// Checkin once its response has been read and closed.
func (p *Pool) Checkout(ctx context.Context) (*Worker, time.Duration, error) {
	start := time.Now()
	w, wt, err := p.tryCheckout()
	if err != nil {
		return nil, 0, err
	}
	if w != nil {
		p.stats.checkouts.Add(1)
		p.done(0)
		return w, 0, nil
	}
	timer := time.NewTimer(p.cfg.CheckoutTimeout)
	defer timer.Stop()
	var cause error
	select {
	case w = <-wt.ch:
	case <-timer.C:
		cause = ErrTimeout
	case <-ctx.Done():
		cause = ctx.Err()
	}
	if w == nil {
		p.mu.Lock()
		if wt.queued {
			p.removeWaiter(wt)
			p.mu.Unlock()
			wait := time.Since(start)
			if cause == ErrTimeout {
				p.stats.timeouts.Add(1)
			}
			p.done(wait)
			return nil, wait, cause
		}
		p.mu.Unlock()
		// A worker was handed over while we gave up: as poolboy does on a
		// cancelled checkout, give it back and fail.
		p.Checkin(<-wt.ch)
		wait := time.Since(start)
		if cause == ErrTimeout {
			p.stats.timeouts.Add(1)
		}
		p.done(wait)
		return nil, wait, cause
	}
	wait := time.Since(start)
	p.stats.checkouts.Add(1)
	p.done(wait)
	return w, wait, nil
}

func (p *Pool) done(wait time.Duration) {
	if p.observe != nil {
		p.observe(wait)
	}
}

// tryCheckout takes an idle worker or starts an overflow one; failing both it
// queues a waiter.
func (p *Pool) tryCheckout() (*Worker, *waiter, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil, ErrClosed
	}
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.busy++
		return w, nil, nil
	}
	if p.overflow < p.cfg.Overflow {
		p.overflow++
		p.busy++
		p.stats.overflowOpened.Add(1)
		return p.newWorker(true), nil, nil
	}
	wt := &waiter{ch: make(chan *Worker, 1), queued: true}
	p.waiters.PushBack(wt)
	return nil, wt, nil
}

// removeWaiter unlinks wt; p.mu must be held.
func (p *Pool) removeWaiter(wt *waiter) {
	for e := p.waiters.Front(); e != nil; e = e.Next() {
		if e.Value == wt {
			p.waiters.Remove(e)
			break
		}
	}
	wt.queued = false
}

// Checkin returns a worker: to the longest waiting caller if any, else an
// overflow worker is dismissed (its connection closed) and a persistent one
// goes back to the idle list. On a closed pool, workers nobody waits for are
// closed.
func (p *Pool) Checkin(w *Worker) {
	p.mu.Lock()
	if e := p.waiters.Front(); e != nil {
		wt := p.waiters.Remove(e).(*waiter)
		wt.queued = false
		wt.ch <- w
		p.mu.Unlock()
		return
	}
	p.busy--
	if w.overflow {
		p.overflow--
		p.mu.Unlock()
		p.stats.overflowClosed.Add(1)
		w.close()
		return
	}
	if p.closed {
		p.mu.Unlock()
		w.close()
		return
	}
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// Close stops new checkouts and closes idle workers. Callers already waiting
// are still served by workers as they are checked in, so a pool replaced on
// reload drops no request; busy workers close when checked in.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, w := range idle {
		w.close()
	}
}

// Snapshot reports the pool's gauges and counters.
func (p *Pool) Snapshot() Snapshot {
	p.mu.Lock()
	s := Snapshot{
		Name:          p.cfg.Name,
		Size:          p.cfg.Size,
		Overflow:      p.cfg.Overflow,
		InUse:         p.busy,
		Idle:          len(p.idle),
		OverflowInUse: p.overflow,
		Waiting:       p.waiters.Len(),
	}
	p.mu.Unlock()
	s.Checkouts = p.stats.checkouts.Load()
	s.Timeouts = p.stats.timeouts.Load()
	s.OverflowOpened = p.stats.overflowOpened.Load()
	s.OverflowClosed = p.stats.overflowClosed.Load()
	return s
}

func (p *Pool) newWorker(overflow bool) *Worker {
	return &Worker{overflow: overflow, dial: p.dial}
}
