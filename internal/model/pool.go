package model

import (
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// worker is a simulated upstream worker.
type worker struct{ overflow bool }

// ticket is a simulated caller's checkout.
type ticket = pool.Ticket[*worker, *request]

// message kinds for the serial manager's mailbox.
const (
	msgCheckout uint8 = iota
	msgCheckin
	msgCancel
)

type message struct {
	kind uint8
	t    *ticket
	w    *worker
}

// simPool drives a pool.Machine in virtual time. A serial pool's messages
// go through a mailbox taken one at a time by a manager that is busy for
// the message's cost (starting a worker: dial plus worker_start_cost;
// dismissing one: close plus worker_stop_cost); a concurrent pool applies
// them at once.
type simPool struct {
	s      *sim
	name   string
	cfg    *config.PoolConfig
	serial bool
	m      *pool.Machine[*worker, *request]

	mailbox   []message
	head      int
	scheduled bool          // an evManager is on the agenda
	freeAt    time.Duration // the manager is busy until then
	acc       time.Duration // cost spent so far on the message in hand

	startCost, stopCost time.Duration

	busy                                   time.Duration // the manager's time spent on messages
	checkouts, timeouts, opened, dismissed uint64
	maxWait                                time.Duration
	mailboxPeak                            int
	series                                 PoolSeries
}

func newSimPool(s *sim, name string, cfg *config.PoolConfig) *simPool {
	p := &simPool{s: s, name: name, cfg: cfg, serial: cfg.Manager != config.ManagerConcurrent}
	if p.serial {
		p.startCost = s.in.Costs.Dial + cfg.WorkerStartCost.D()
		p.stopCost = s.in.Costs.Close + cfg.WorkerStopCost.D()
	}
	p.m = pool.NewMachine[*worker, *request](cfg.Size, cfg.Overflow, p.serial, simEffects{p}, func() *worker { return &worker{} })
	p.series = PoolSeries{Pool: name, Manager: cfg.Manager, Size: cfg.Size, Overflow: cfg.Overflow,
		StartCost: p.startCost, StopCost: p.stopCost, CheckoutTimeout: cfg.CheckoutTimeout.D()}
	return p
}

// simEffects are the model's side of the Machine: costs become the
// manager's busy time, and a handover becomes an event at the instant the
// manager's work on it ends.
type simEffects struct{ p *simPool }

func (fx simEffects) Start() *worker {
	fx.p.acc += fx.p.startCost
	fx.p.opened++
	return &worker{overflow: true}
}

func (fx simEffects) Dismiss(*worker) {
	fx.p.acc += fx.p.stopCost
	fx.p.dismissed++
}

func (simEffects) Close(*worker)           {}
func (simEffects) Overflow(w *worker) bool { return w.overflow }

// Claim fails for a caller whose checkout or client timeout comes before
// the manager would finish handing the worker over: in the proxy that
// caller has given up by then.
func (fx simEffects) Claim(t *ticket) bool {
	at := fx.p.s.now + fx.p.acc
	if r := t.Payload; at >= r.checkoutDeadline || at >= r.clientDeadline {
		return false
	}
	return t.TryClaim()
}

func (fx simEffects) Deliver(t *ticket, w *worker) {
	r := t.Payload
	r.worker = w
	fx.p.s.at(fx.p.s.now+fx.p.acc, evDelivered, r, nil)
}

// send applies a message: through the mailbox for a serial pool, at once
// for a concurrent one.
func (p *simPool) send(m message) {
	if !p.serial {
		p.apply(m)
		return
	}
	p.mailbox = append(p.mailbox, m)
	if n := len(p.mailbox) - p.head; n > p.mailboxPeak {
		p.mailboxPeak = n
	}
	if !p.scheduled {
		p.scheduled = true
		p.s.at(max(p.s.now, p.freeAt), evManager, nil, p)
	}
}

// manage takes the serial manager's next message.
func (p *simPool) manage() {
	m := p.mailbox[p.head]
	p.mailbox[p.head] = message{}
	p.head++
	if p.head == len(p.mailbox) {
		p.mailbox, p.head = p.mailbox[:0], 0
	}
	p.acc = p.s.in.Costs.Message
	p.apply(m)
	p.busy += p.acc
	p.freeAt = p.s.now + p.acc
	p.acc = 0
	if p.head < len(p.mailbox) {
		p.s.at(p.freeAt, evManager, nil, p)
		return
	}
	p.scheduled = false
}

func (p *simPool) apply(m message) {
	switch m.kind {
	case msgCheckout:
		_ = p.m.Checkout(m.t) // a simulated pool is never closed
	case msgCheckin:
		p.m.Checkin(m.w)
	case msgCancel:
		p.m.Cancel(m.t)
	}
}

// sample appends the pool's gauges to its series.
func (p *simPool) sample(t time.Duration) {
	g := p.m.Gauges()
	s := &p.series
	s.T = append(s.T, t.Seconds())
	s.InUse = append(s.InUse, g.InUse)
	s.OverflowInUse = append(s.OverflowInUse, g.OverflowInUse)
	s.Waiting = append(s.Waiting, g.Waiting)
	s.Mailbox = append(s.Mailbox, len(p.mailbox)-p.head)
}
