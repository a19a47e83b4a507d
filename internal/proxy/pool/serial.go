package pool

import (
	"context"
	"net/url"
	"time"
)

// Waiter states, changed by compare-and-swap so that a worker handed over
// at the instant its caller gives up is never lost.
const (
	waiting   int32 = iota
	delivered       // the manager handed a worker over
	abandoned       // the caller gave up first
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
	wt := &waiter{ch: make(chan *Worker, 1)}
	if !p.mb.push(message{kind: msgCheckout, wt: wt}) {
		return nil, 0, ErrClosed
	}
	timer := time.NewTimer(p.cfg.CheckoutTimeout)
	defer timer.Stop()
	var cause error
	var w *Worker
	select {
	case w = <-wt.ch:
	case <-timer.C:
		cause = ErrTimeout
	case <-ctx.Done():
		cause = ctx.Err()
	}
	if w == nil {
		if wt.state.CompareAndSwap(waiting, abandoned) {
			// As poolboy's caller does after its call timed out: tell the
			// manager, which still works through the checkout if it has not
			// yet, then takes the worker back.
			p.mb.push(message{kind: msgCancel, wt: wt})
		} else {
			p.Checkin(<-wt.ch) // handed over as we gave up: give it back
		}
		return p.finish(start, nil, cause)
	}
	return p.finish(start, w, nil)
}

// manage is the serial manager: one goroutine taking messages in order, as
// poolboy's gen_server. State changes are made under p.mu only so that
// Snapshot can read them; the slow work (starting and dismissing workers)
// is done outside the lock but still inside the loop, blocking every
// message behind it.
func (p *Pool) manage() {
	defer close(p.exited)
	for {
		m := p.mb.pop()
		switch m.kind {
		case msgCheckout:
			p.serialCheckout(m.wt)
		case msgCheckin:
			p.serialCheckin(m.w)
		case msgCancel:
			p.serialCancel(m.wt)
		case msgClose:
			p.closeIdle()
		}
		p.mu.Lock()
		done := p.closed && p.busy == 0 && p.waiters.Len() == 0
		p.mu.Unlock()
		if done && p.mb.exitIfIdle() {
			return
		}
	}
}

// serialCheckout is poolboy's handle_call({checkout, ...}): an idle worker
// if any (LIFO), else a new overflow worker started right here, else the
// caller joins the waiting queue.
func (p *Pool) serialCheckout(wt *waiter) {
	p.mu.Lock()
	if w := p.popIdle(); w != nil {
		p.mu.Unlock()
		p.deliver(wt, w)
		return
	}
	if p.overflow < p.cfg.Overflow {
		p.overflow++
		p.busy++
		p.mu.Unlock()
		p.deliver(wt, p.startWorker())
		return
	}
	wt.elem = p.waiters.PushBack(wt)
	wt.queued = true
	p.mu.Unlock()
}

// deliver hands w to wt's caller, or keeps it for the cancel message if
// the caller already gave up (poolboy replies to a caller that has moved
// on, and its cancel_waiting later checks the worker back in).
func (p *Pool) deliver(wt *waiter, w *Worker) {
	if wt.state.CompareAndSwap(waiting, delivered) {
		wt.ch <- w
		return
	}
	wt.given = w
}

// serialCheckin is poolboy's handle_checkin: the longest waiting caller
// gets the worker; with nobody waiting and overflow workers out, the
// returning worker is dismissed (whichever it is, as poolboy does); else it
// goes back to the idle list.
func (p *Pool) serialCheckin(w *Worker) {
	p.mu.Lock()
	for e := p.waiters.Front(); e != nil; e = p.waiters.Front() {
		wt := p.waiters.Remove(e).(*waiter)
		wt.elem, wt.queued = nil, false
		if wt.state.CompareAndSwap(waiting, delivered) {
			p.mu.Unlock()
			wt.ch <- w
			return
		}
	}
	p.busy--
	if p.overflow > 0 {
		p.overflow--
		p.mu.Unlock()
		p.dismissWorker(w)
		return
	}
	p.shelve(w)
}

// serialCancel is poolboy's cancel_waiting: a worker handed to a caller
// that had gone is checked back in; a queued caller leaves the queue.
func (p *Pool) serialCancel(wt *waiter) {
	if w := wt.given; w != nil {
		wt.given = nil
		p.serialCheckin(w)
		return
	}
	p.mu.Lock()
	if wt.elem != nil {
		p.waiters.Remove(wt.elem)
		wt.elem, wt.queued = nil, false
	}
	p.mu.Unlock()
}

// startWorker is supervisor:start_child for an overflow worker: a fresh
// upstream connection (TCP, plus TLS for an https upstream) dialled by the
// manager itself, then the configured start cost, all while every other
// message waits.
func (p *Pool) startWorker() *Worker {
	w := p.newWorker(true)
	if u := p.upstream; u != nil {
		ctx, cancel := context.WithTimeout(context.Background(), startDialTimeout)
		if err := w.connect(ctx, u.scheme, u.target, u.host); err == nil {
			w.lastUsed = time.Now()
		} // on failure the worker connects (and reports the error) on use
		cancel()
	}
	if p.cfg.StartCost > 0 {
		time.Sleep(p.cfg.StartCost)
	}
	p.stats.overflowOpened.Add(1)
	return w
}

// dismissWorker is supervisor:terminate_child: the connection is closed and
// the stop cost paid, inside the manager.
func (p *Pool) dismissWorker(w *Worker) {
	w.close()
	if p.cfg.StopCost > 0 {
		time.Sleep(p.cfg.StopCost)
	}
	p.stats.overflowClosed.Add(1)
}

// startDialTimeout bounds the manager's dial of a new worker.
const startDialTimeout = 5 * time.Second
