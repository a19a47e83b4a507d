package pool

import (
	"context"
	"net/url"
	"runtime"
	"time"
)

// upstream is where the serial manager dials a worker it starts.
type upstream struct{ scheme, target, host string }

func parseUpstream(raw string) *upstream {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	return &upstream{scheme: u.Scheme, target: u.Scheme + "://" + canonicalAddr(u.Scheme, u.Host), host: u.Host}
}

// checkoutSerial sends a checkout message and waits for the manager's
// answer. The checkout timeout counts from the moment the message enters
// the mailbox, as poolboy's gen_server:call timeout does, so time spent
// queued behind other messages (worker starts above all) counts against it.
func (p *Pool) checkoutSerial(ctx context.Context) (*Worker, time.Duration, error) {
	start := time.Now()
	t := newTicket()
	// The manager idle and a worker idle: the checkout applies here, as
	// the manager would apply it at once.
	if p.mb.tryInline(func() bool { return p.m.TakeIdle(t) }) {
		w := <-t.Payload
		reuseTicket(t)
		return p.finish(start, w, nil)
	}
	if !p.mb.push(message{kind: msgCheckout, t: t}) {
		reuseTicket(t) // never queued
		return nil, 0, ErrClosed
	}
	// The manager was just woken (it runs next on this thread): let it
	// answer before arming the checkout timer. When it had a worker idle,
	// the answer is already here, and the checkout costs no timer and no
	// park (bench/README.md, "The proxy at nginx's one worker").
	runtime.Gosched()
	select {
	case w := <-t.Payload:
		reuseTicket(t)
		return p.finish(start, w, nil)
	default:
	}
	// As poolboy's caller does after its call timed out: tell the manager,
	// which still works through the checkout if it has not yet, then takes
	// the worker back.
	return p.await(ctx, start, t, func() { p.mb.push(message{kind: msgCancel, t: t}) })
}

// manage is the serial manager: one goroutine taking messages in order, as
// poolboy's gen_server, and applying them to the Machine. The slow work
// (starting and dismissing workers) is done inside the loop, blocking
// every message behind it.
func (p *Pool) manage() {
	defer close(p.exited)
	for {
		m := p.mb.pop()
		switch m.kind {
		case msgCheckout:
			_ = p.m.Checkout(m.t) // the mailbox refuses checkouts once closing
		case msgCheckin:
			p.m.Checkin(m.w)
		case msgCancel:
			p.m.Cancel(m.t)
		case msgClose:
			p.m.Close()
		}
		if p.m.Drained() && p.mb.exitIfIdle() {
			return
		}
	}
}

// startWorker is supervisor:start_child for an overflow worker: a fresh
// upstream connection (TCP, plus TLS for an https upstream) dialled by the
// manager itself, then the configured start cost, all while every other
// message waits.
func (p *Pool) startWorker() *Worker {
	began := time.Now()
	w := p.newWorker(true)
	if u := p.upstream; u != nil {
		ctx, cancel := context.WithTimeout(context.Background(), startDialTimeout)
		if err := w.connect(ctx, u.scheme, u.target, u.host); err == nil {
			w.lastUsed = time.Now()
		} // on failure the worker connects (and reports the error) on use
		cancel()
	}
	if p.cfg.StartCost > 0 {
		p.pay(began, p.cfg.StartCost)
	}
	p.stats.overflowOpened.Add(1)
	return w
}

// dismissWorker is supervisor:terminate_child: the connection is closed and
// the stop cost paid, inside the manager.
func (p *Pool) dismissWorker(w *Worker) {
	began := time.Now()
	w.close()
	if p.cfg.StopCost > 0 {
		p.pay(began, p.cfg.StopCost)
	}
	p.stats.overflowClosed.Add(1)
}

// pay spends cost in the manager, on top of the real work done since
// began (a dial, a close). Costs are owed back to back rather than slept
// one by one: a sleep that wakes late (a loaded machine wakes sleepers a
// fraction of a millisecond to a millisecond late) is made up by the next
// cost while the manager stays busy, so a manager paying 13 ms per start
// starts 1/13 ms workers a second, as the model assumes, instead of
// whatever the machine's wake-up delays leave. A manager idle for longer
// than PayCredit starts afresh.
func (p *Pool) pay(began time.Time, cost time.Duration) {
	if began.Sub(p.owed) > PayCredit {
		p.owed = began
	}
	p.owed = p.owed.Add(time.Since(began) + cost)
	if d := time.Until(p.owed); d > 0 {
		time.Sleep(d)
	}
}

// PayCredit is how late a manager's previous cost may have ended for the
// next to make up for it (the model owes its simulated costs the same way).
const PayCredit = 2 * time.Millisecond

// startDialTimeout bounds the manager's dial of a new worker.
const startDialTimeout = 5 * time.Second
