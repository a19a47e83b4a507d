// Package pool is the proxy's upstream worker pool, modelled on poolboy as
// Belfrage uses it: Size persistent workers (each one keep-alive upstream
// connection), up to Overflow extra workers started on demand and dismissed
// when they are checked in with nobody waiting, and a FIFO queue of callers
// waiting at most CheckoutTimeout for a worker.
//
// Two managers are offered. ManagerSerial is poolboy's: one goroutine takes
// checkout, checkin and cancel messages from an unbounded mailbox in order,
// and starts and dismisses overflow workers itself (a real upstream dial
// plus StartCost, a close plus StopCost), so that when overflow churn
// outruns it the mailbox grows and checkouts time out while workers sit
// idle. ManagerConcurrent is a mutex-guarded pool whose overflow workers
// cost nothing to start or stop.
//
// Nothing here computes a latency: the queueing delays a proxy shows when
// its pool runs dry come from callers really waiting for workers.
package pool

import (
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
	// Manager is ManagerSerial or ManagerConcurrent ("" is concurrent).
	Manager string
	// StartCost is paid by the serial manager for every overflow worker it
	// starts, after dialling the upstream (process spawn, supervisor work).
	StartCost time.Duration
	// StopCost is paid by the serial manager for every worker it dismisses.
	StopCost time.Duration
	// Upstream (scheme://host[:port]) is what the serial manager dials when
	// it starts a worker; "" leaves the dial to the worker's first request.
	Upstream string
}

// Pool managers.
const (
	ManagerSerial     = "serial"     // one goroutine, a mailbox: poolboy
	ManagerConcurrent = "concurrent" // a mutex, free overflow workers
)

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
	m       *Machine[*Worker, chan *Worker] // the bookkeeping, shared with the model

	// serial manager only
	mb       *mailbox
	upstream *upstream
	exited   chan struct{} // closed when the manager goroutine returns
	owed     time.Time     // when the manager's costs paid so far end (see pay)
}

// ticket is a caller's checkout; the worker is handed over on its channel.
type ticket = Ticket[*Worker, chan *Worker]

// tickets keeps tickets (and their channels) between checkouts: a ticket
// whose worker was received is referenced by nobody else (the Machine
// forgets a ticket once it delivered to it), so it can serve again.
var tickets = sync.Pool{New: func() any { return &ticket{Payload: make(chan *Worker, 1)} }}

func newTicket() *ticket { return tickets.Get().(*ticket) }

// reuseTicket gives back a ticket whose worker its caller received. An
// abandoned ticket is never reused: the manager may still hold it.
func reuseTicket(t *ticket) {
	t.state.Store(waiting)
	tickets.Put(t)
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
	serial := cfg.Manager == ManagerSerial
	p.m = NewMachine[*Worker, chan *Worker](cfg.Size, cfg.Overflow, serial, liveEffects{p}, func() *Worker { return p.newWorker(false) })
	if serial {
		p.mb = newMailbox()
		p.upstream = parseUpstream(cfg.Upstream)
		p.exited = make(chan struct{})
		go p.manage()
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
	if p.mb != nil {
		return p.checkoutSerial(ctx)
	}
	start := time.Now()
	t := newTicket()
	if err := p.m.Checkout(t); err != nil {
		return nil, 0, err
	}
	select {
	case w := <-t.Payload: // an idle or new overflow worker: no wait
		reuseTicket(t)
		p.stats.checkouts.Add(1)
		p.done(0)
		return w, 0, nil
	default:
	}
	return p.await(ctx, start, t, func() { p.m.Cancel(t) })
}

// await waits for t's worker up to the checkout timeout, ctx's end or the
// worker, whichever comes first. A caller giving up abandons its ticket and
// calls cancel (the concurrent pool leaves the queue at once; the serial
// manager is sent a cancel message); a worker handed over as it gave up is
// checked back in, as poolboy does on a cancelled checkout.
func (p *Pool) await(ctx context.Context, start time.Time, t *ticket, cancel func()) (*Worker, time.Duration, error) {
	timer := time.NewTimer(p.cfg.CheckoutTimeout - time.Since(start))
	defer timer.Stop()
	var cause error
	select {
	case w := <-t.Payload:
		reuseTicket(t)
		return p.finish(start, w, nil)
	case <-timer.C:
		cause = ErrTimeout
	case <-ctx.Done():
		cause = ctx.Err()
	}
	if t.Abandon() {
		cancel()
	} else {
		p.Checkin(<-t.Payload)
	}
	return p.finish(start, nil, cause)
}

// finish counts a checkout that waited since start, successful (w, nil) or
// not (nil, cause), and reports its wait to Observe.
func (p *Pool) finish(start time.Time, w *Worker, cause error) (*Worker, time.Duration, error) {
	wait := time.Since(start)
	switch cause {
	case nil:
		p.stats.checkouts.Add(1)
	case ErrTimeout:
		p.stats.timeouts.Add(1)
	}
	p.done(wait)
	return w, wait, cause
}

func (p *Pool) done(wait time.Duration) {
	if p.observe != nil {
		p.observe(wait)
	}
}

// Checkin returns a worker: to the longest waiting caller if any, else an
// overflow worker is dismissed (its connection closed) and a persistent one
// goes back to the idle list. On a closed pool, workers nobody waits for are
// closed.
func (p *Pool) Checkin(w *Worker) {
	if p.mb != nil {
		if p.mb.tryInline(func() bool { return p.m.ReturnIdle(w) }) {
			return // applied here, the manager idle (see mailbox.tryInline)
		}
		if !p.mb.push(message{kind: msgCheckin, w: w}) {
			w.close() // the manager is gone: nobody will use it again
		}
		return
	}
	p.m.Checkin(w)
}

// Close stops new checkouts and closes idle workers. Callers already waiting
// are still served by workers as they are checked in, so a pool replaced on
// reload drops no request; busy workers close when checked in. A serial
// manager stops once its pool is closed and every worker is back.
func (p *Pool) Close() {
	if p.mb != nil {
		p.mb.push(message{kind: msgClose})
		return
	}
	p.m.Close()
}

// liveEffects are the proxy's side of its Machine: real workers, real
// dials and closes, channels to the waiting callers.
type liveEffects struct{ p *Pool }

func (fx liveEffects) Start() *Worker {
	if fx.p.mb != nil {
		return fx.p.startWorker()
	}
	fx.p.stats.overflowOpened.Add(1)
	return fx.p.newWorker(true)
}

func (fx liveEffects) Dismiss(w *Worker) {
	if fx.p.mb != nil {
		fx.p.dismissWorker(w)
		return
	}
	fx.p.stats.overflowClosed.Add(1)
	w.close()
}

func (liveEffects) Close(w *Worker)              { w.close() }
func (liveEffects) Overflow(w *Worker) bool      { return w.overflow }
func (liveEffects) Claim(t *ticket) bool         { return t.TryClaim() }
func (liveEffects) Deliver(t *ticket, w *Worker) { t.Payload <- w }

// Snapshot reports the pool's gauges and counters.
func (p *Pool) Snapshot() Snapshot {
	g := p.m.Gauges()
	s := Snapshot{
		Name:          p.cfg.Name,
		Manager:       p.manager(),
		Size:          p.cfg.Size,
		Overflow:      p.cfg.Overflow,
		InUse:         g.InUse,
		Idle:          g.Idle,
		OverflowInUse: g.OverflowInUse,
		Waiting:       g.Waiting,
	}
	if p.mb != nil {
		s.Mailbox, s.MailboxPeak = p.mb.lengths()
	}
	s.Checkouts = p.stats.checkouts.Load()
	s.Timeouts = p.stats.timeouts.Load()
	s.OverflowOpened = p.stats.overflowOpened.Load()
	s.OverflowClosed = p.stats.overflowClosed.Load()
	return s
}

func (p *Pool) manager() string {
	if p.mb != nil {
		return ManagerSerial
	}
	return ManagerConcurrent
}

// Done is closed once a closed pool's serial manager has stopped (every
// worker back); for a concurrent pool it is nil.
func (p *Pool) Done() <-chan struct{} { return p.exited }

func (p *Pool) newWorker(overflow bool) *Worker {
	return &Worker{overflow: overflow, dial: p.dial}
}
