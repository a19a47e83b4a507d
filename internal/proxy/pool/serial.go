package pool

import (
	"context"
	"net/url"
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
	t := &ticket{Payload: make(chan *Worker, 1)}
	if !p.mb.push(message{kind: msgCheckout, t: t}) {
		return nil, 0, ErrClosed
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
