package pool

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// Machine is a pool's bookkeeping as a deterministic state machine: which
// workers are idle, how many are checked out, how many overflow workers
// live, and who waits in line. Checkout, Checkin and Cancel are poolboy's
// handle_call(checkout), handle_checkin and cancel_waiting; every side
// effect (starting or dismissing a worker, handing one over) goes through
// Effects. The proxy drives a Machine from goroutines (the serial
// manager's loop, or callers under the concurrent pool's lock) with
// effects that dial, sleep and send on channels; the model drives the same
// Machine from a discrete-event loop with effects that advance virtual
// time. So what the model predicts and what the proxy does come from one
// piece of code.
//
// A Machine is safe for concurrent use; effects are called without its
// lock held.
type Machine[W, P any] struct {
	size, maxOverflow int
	dismissAny        bool
	fx                Effects[W, P]

	mu       sync.Mutex
	idle     []W // LIFO, as poolboy's default strategy
	busy     int // workers checked out, overflow included
	overflow int // overflow workers alive
	waiters  list.List
	closed   bool
}

// Effects are what a Machine's decisions do in the world.
type Effects[W, P any] interface {
	// Start starts an overflow worker for a checkout (poolboy's
	// supervisor:start_child).
	Start() W
	// Dismiss ends an overflow worker (supervisor:terminate_child).
	Dismiss(w W)
	// Close ends an idle worker of a closed pool.
	Close(w W)
	// Overflow reports whether w was started as an overflow worker.
	Overflow(w W) bool
	// Claim takes t for a handover; false means its caller gave up first
	// (it has called or will call Ticket.Abandon and then Cancel).
	Claim(t *Ticket[W, P]) bool
	// Deliver hands w to t's caller, which Claim took.
	Deliver(t *Ticket[W, P], w W)
}

// Ticket is one caller's checkout: what it carries (P: a channel, a
// simulated request) and where it stands.
type Ticket[W, P any] struct {
	Payload P

	state    atomic.Int32
	elem     *list.Element // place in the queue, under Machine.mu
	given    W             // handed over after the caller gave up
	hasGiven bool
}

// Ticket states, changed by compare-and-swap so that a worker handed over
// at the instant its caller gives up is never lost.
const (
	waiting   int32 = iota
	delivered       // a worker was handed over
	abandoned       // the caller gave up first
)

// Abandon marks t given up. It reports false when a worker was already
// handed over: the caller must then take it and check it back in.
func (t *Ticket[W, P]) Abandon() bool { return t.state.CompareAndSwap(waiting, abandoned) }

// TryClaim is the usual Effects.Claim: it takes t unless its caller gave up.
func (t *Ticket[W, P]) TryClaim() bool { return t.state.CompareAndSwap(waiting, delivered) }

// NewMachine builds a pool of size persistent workers (made by mk) with up
// to maxOverflow more on demand. dismissAny is poolboy's checkin rule for
// the serial manager: with overflow workers alive and nobody waiting, the
// returning worker is dismissed whichever it is; otherwise only overflow
// workers are.
func NewMachine[W, P any](size, maxOverflow int, dismissAny bool, fx Effects[W, P], mk func() W) *Machine[W, P] {
	m := &Machine[W, P]{size: size, maxOverflow: maxOverflow, dismissAny: dismissAny, fx: fx}
	m.idle = make([]W, 0, size)
	for i := 0; i < size; i++ {
		m.idle = append(m.idle, mk())
	}
	return m
}

// Checkout serves t: an idle worker if any (the most recently idled), else
// a new overflow worker if overflow is left, else t joins the FIFO queue.
// It returns ErrClosed on a closed machine.
func (m *Machine[W, P]) Checkout(t *Ticket[W, P]) error {
	_, err := m.checkout(t, false)
	return err
}

// TakeIdle is Checkout when it costs nothing: with an idle worker there,
// it hands t that worker and reports true; when Checkout would start a
// worker or queue t, or on a closed machine, it does nothing and reports
// false.
func (m *Machine[W, P]) TakeIdle(t *Ticket[W, P]) bool {
	done, _ := m.checkout(t, true)
	return done
}

// checkout is Checkout, or TakeIdle when quick.
func (m *Machine[W, P]) checkout(t *Ticket[W, P], quick bool) (bool, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false, ErrClosed
	}
	if n := len(m.idle); n > 0 {
		w := m.idle[n-1]
		var zero W
		m.idle[n-1] = zero
		m.idle = m.idle[:n-1]
		m.busy++
		m.mu.Unlock()
		m.deliver(t, w)
		return true, nil
	}
	if quick {
		m.mu.Unlock()
		return false, nil
	}
	if m.overflow < m.maxOverflow {
		m.overflow++
		m.busy++
		m.mu.Unlock()
		m.deliver(t, m.fx.Start())
		return true, nil
	}
	t.elem = m.waiters.PushBack(t)
	m.mu.Unlock()
	return true, nil
}

// deliver hands w to t, or keeps it for t's Cancel if its caller already
// gave up (poolboy replies to a caller that has moved on, and its
// cancel_waiting later checks the worker back in).
func (m *Machine[W, P]) deliver(t *Ticket[W, P], w W) {
	if m.fx.Claim(t) {
		m.fx.Deliver(t, w)
		return
	}
	m.mu.Lock()
	t.given, t.hasGiven = w, true
	m.mu.Unlock()
}

// Checkin takes a worker back: the longest waiting caller still there gets
// it; else an overflow worker is dismissed; else it goes back to the idle
// list (or is closed, on a closed machine).
func (m *Machine[W, P]) Checkin(w W) { m.checkin(w, false) }

// ReturnIdle is Checkin when it costs nothing: w goes to the longest
// waiting caller or back to the idle list, and it reports true; when
// Checkin would dismiss or close w, it does nothing (but drop the callers
// that gave up from the queue, as Checkin would) and reports false.
func (m *Machine[W, P]) ReturnIdle(w W) bool { return m.checkin(w, true) }

// checkin is Checkin, or ReturnIdle when quick.
func (m *Machine[W, P]) checkin(w W, quick bool) bool {
	m.mu.Lock()
	for e := m.waiters.Front(); e != nil; e = m.waiters.Front() {
		t := m.waiters.Remove(e).(*Ticket[W, P])
		t.elem = nil
		if m.fx.Claim(t) {
			m.mu.Unlock()
			m.fx.Deliver(t, w)
			return true
		}
	}
	dismiss := m.overflow > 0 && (m.dismissAny || m.fx.Overflow(w))
	if quick && (dismiss || m.closed) {
		m.mu.Unlock()
		return false
	}
	m.busy--
	if dismiss {
		m.overflow--
		m.mu.Unlock()
		m.fx.Dismiss(w)
		return true
	}
	if m.closed {
		m.mu.Unlock()
		m.fx.Close(w)
		return true
	}
	m.idle = append(m.idle, w)
	m.mu.Unlock()
	return true
}

// Cancel is poolboy's cancel_waiting for an abandoned ticket: a worker
// handed over after its caller gave up is checked back in, and a caller
// still queued leaves the queue.
func (m *Machine[W, P]) Cancel(t *Ticket[W, P]) {
	m.mu.Lock()
	if t.hasGiven {
		w := t.given
		var zero W
		t.given, t.hasGiven = zero, false
		m.mu.Unlock()
		m.Checkin(w)
		return
	}
	if t.elem != nil {
		m.waiters.Remove(t.elem)
		t.elem = nil
	}
	m.mu.Unlock()
}

// Close stops new checkouts and closes the idle workers. Queued callers are
// still served by workers as they come back.
func (m *Machine[W, P]) Close() {
	m.mu.Lock()
	m.closed = true
	idle := m.idle
	m.idle = nil
	m.mu.Unlock()
	for _, w := range idle {
		m.fx.Close(w)
	}
}

// Drained reports whether a closed machine has every worker back and
// nobody waiting.
func (m *Machine[W, P]) Drained() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed && m.busy == 0 && m.waiters.Len() == 0
}

// Gauges are a Machine's counts at one instant.
type Gauges struct {
	InUse         int // workers checked out, overflow included
	Idle          int // persistent workers free
	OverflowInUse int // overflow workers alive
	Waiting       int // callers queued
}

// Gauges reports the machine's counts.
func (m *Machine[W, P]) Gauges() Gauges {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Gauges{InUse: m.busy, Idle: len(m.idle), OverflowInUse: m.overflow, Waiting: m.waiters.Len()}
}
