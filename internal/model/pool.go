package model

import (
	"fmt"
	"math"
	"time"

	"github.com/loadlab/loadlab/internal/prediction"
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
	sent time.Duration
}

// simPool drives a pool.Machine in virtual time. A serial pool's messages
// go through a mailbox taken one at a time by a manager that is busy for
// its own work on the message (Costs.Message) and the message's cost
// (starting a worker: dial plus worker_start_cost; dismissing one: close
// plus worker_stop_cost), owed back to back as the proxy's pool.pay owes
// them; a concurrent pool applies them at once.
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
	// owed is when the costs the manager paid so far end, workEnd when
	// its last dial or close ended, and owing what the message in hand
	// added to owed (see pay).
	owed, workEnd, owing time.Duration

	// startCost and stopCost are what a start and a dismissal take the
	// manager when it turns workers over back to back: the configured cost
	// plus the dial (after sleeping the stop cost) or the close (after the
	// start cost), for the prediction's report.
	startCost, stopCost time.Duration

	busy                                   time.Duration // the manager's time spent on messages
	checkouts, timeouts, opened, dismissed uint64
	maxWait                                time.Duration
	mailboxPeak                            int
	series                                 prediction.Pool

	// lately are the requests whose checkout timed out in the last
	// TieMargin: if a worker comes free then with no one else waiting,
	// they lost a tie with the checkout timeout.
	lately  []*request
	tieName string
}

func newSimPool(s *sim, name string, cfg *config.PoolConfig) *simPool {
	p := &simPool{s: s, name: name, cfg: cfg, serial: cfg.Manager != config.ManagerConcurrent, owed: math.MinInt64 / 2,
		tieName: fmt.Sprintf("checkout timeout %s of pool %s", cfg.CheckoutTimeout.D(), name)}
	if p.serial {
		k, start, stop := s.in.Costs, cfg.WorkerStartCost.D(), cfg.WorkerStopCost.D()
		dial, _ := k.Wake.After(stop)
		_, cl := k.Wake.After(start)
		p.startCost = start + k.Dial + dial
		p.stopCost = stop + k.Close + cl
	}
	p.m = pool.NewMachine[*worker, *request](cfg.Size, cfg.Overflow, p.serial, simEffects{p}, func() *worker { return &worker{} })
	p.series = prediction.Pool{Pool: name, Manager: cfg.Manager, Size: cfg.Size, Overflow: cfg.Overflow,
		StartCost: p.startCost, StopCost: p.stopCost, CheckoutTimeout: cfg.CheckoutTimeout.D()}
	return p
}

// simEffects are the model's side of the Machine: costs become the
// manager's busy time, and a handover becomes an event at the instant the
// manager's work on it ends.
type simEffects struct{ p *simPool }

func (fx simEffects) Start() *worker {
	p := fx.p
	if p.serial {
		dial, _ := p.s.in.Costs.Wake.After(p.s.now + p.acc - p.workEnd)
		p.pay(p.s.in.Costs.Dial+dial, p.cfg.WorkerStartCost.D())
	}
	p.opened++
	return &worker{overflow: true}
}

func (fx simEffects) Dismiss(*worker) {
	p := fx.p
	if p.serial {
		_, cl := p.s.in.Costs.Wake.After(p.s.now + p.acc - p.workEnd)
		p.pay(p.s.in.Costs.Close+cl, p.cfg.WorkerStopCost.D())
	}
	p.dismissed++
}

// pay is the proxy's pool.pay in virtual time: the manager does work (a
// dial, a close) from the end of what it has done so far on the message
// in hand, then owes cost after it. Costs are owed back to back: while the
// previous cost ended at most pool.PayCredit before the work began, the
// time in between (the manager's handling of messages, a late wake-up) is
// made up, so a manager busy with starts and dismissals turns over one
// per work plus cost, whatever its own work per message. A cost of 0 is
// not paid (nor owed), as in the proxy.
func (p *simPool) pay(work, cost time.Duration) {
	began := p.s.now + p.acc
	p.workEnd = began + work
	end := p.workEnd
	if cost > 0 {
		if began-p.owed > pool.PayCredit {
			p.owed = began
		}
		p.owed += work + cost
		p.owing += work + cost
		end = max(end, p.owed)
	}
	p.acc = end - p.s.now
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
	at := fx.p.s.now + fx.p.acc
	if r.checkoutDeadline-at <= TieMargin && r.sc.record && fx.p.m.Gauges().Waiting == 0 {
		// Just in time, and had it missed, no one would have had the worker.
		r.sc.pred.tie(tieCheckout, fx.p.tieName, at-r.arrived, true)
	}
	fx.p.s.at(at, evDelivered, r, nil)
}

// send applies a message: through the mailbox for a serial pool, at once
// for a concurrent one.
func (p *simPool) send(m message) {
	m.sent = p.s.now
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
	p.acc, p.owing = p.s.in.Costs.Message, 0
	p.apply(m)
	// Busy for what the message cost, even when the costs owed were made
	// up by an idle moment before it: the manager's capacity went to them.
	p.busy += max(p.acc, p.owing)
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
		if m.sent == p.s.now {
			// A worker the exchange's end frees, not a serial manager's
			// backlog: its timing is the latencies', and a tie with the
			// checkout timeout is the configuration's.
			p.checkoutTies()
		}
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

// timedOut remembers a checkout that timed out now, for checkoutTies.
func (p *simPool) timedOut(r *request) {
	i := 0
	for i < len(p.lately) && p.s.now-p.lately[i].checkoutDeadline > TieMargin {
		i++
	}
	p.lately = append(p.lately[:0], p.lately[i:]...)
	p.lately = append(p.lately, r)
}

// checkoutTies counts the checkouts that timed out within TieMargin before
// a worker came free that no one else was waiting for: a hair later and
// they would have had it.
func (p *simPool) checkoutTies() {
	if len(p.lately) == 0 {
		return
	}
	now := p.s.now
	if p.m.Gauges().Waiting == 0 {
		for _, r := range p.lately {
			if now-r.checkoutDeadline <= TieMargin {
				r.sc.pred.tie(tieCheckout, p.tieName, r.checkoutDeadline-r.arrived, false)
			}
		}
	}
	p.lately = p.lately[:0]
}
