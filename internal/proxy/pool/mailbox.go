package pool

import "sync"

// msgKind is what a message to the serial manager asks for.
type msgKind uint8

const (
	msgCheckout msgKind = iota // a caller wants a worker (poolboy's checkout call)
	msgCheckin                 // a worker comes back (poolboy's checkin cast)
	msgCancel                  // a caller gave up waiting (poolboy's cancel_waiting cast)
	msgClose                   // stop taking checkouts, close idle workers
)

type message struct {
	kind msgKind
	t    *ticket
	w    *Worker
}

// mailbox is the serial manager's unbounded FIFO queue, as an Erlang
// process's mailbox: senders never block, the manager takes one message at
// a time, and its length is the pool's "Mailbox" graph: how far the
// manager is behind.
type mailbox struct {
	mu      sync.Mutex
	q       []message
	head    int
	peak    int
	closing bool // Close was called: no new checkouts
	exited  bool // the manager has stopped: nothing is read any more
	// managing: the manager is applying a message (from taking it until
	// it comes back for the next); inline: a caller applies its own
	// (tryInline). One at a time applies messages to the pool.
	managing, inline bool
	signal           chan struct{}
}

func newMailbox() *mailbox { return &mailbox{signal: make(chan struct{}, 1)} }

// push queues m; it reports false if the manager has exited (or, for a
// checkout, if the pool is closing).
func (mb *mailbox) push(m message) bool {
	mb.mu.Lock()
	if mb.exited || (m.kind == msgCheckout && mb.closing) {
		mb.mu.Unlock()
		return false
	}
	if m.kind == msgClose {
		mb.closing = true
	}
	mb.q = append(mb.q, m)
	if n := len(mb.q) - mb.head; n > mb.peak {
		mb.peak = n
	}
	mb.mu.Unlock()
	select {
	case mb.signal <- struct{}{}:
	default:
	}
	return true
}

// tryInline applies a caller's own message in the caller's goroutine
// (apply), as the manager would apply it, when the manager has nothing to
// do: no message queued, none being applied, the pool not closing. It
// reports what apply reports; false, with nothing done, when the manager
// is busy. apply must be quick (no worker started or dismissed) and
// report false, changing nothing, when it cannot be (the caller then
// sends its message). A message pushed meanwhile waits for the manager,
// which is woken after. So a checkout or checkin that finds the pool
// idle costs no trip through the manager's goroutine, and the order in
// which messages apply is still the order they came in.
func (mb *mailbox) tryInline(apply func() bool) bool {
	mb.mu.Lock()
	if mb.managing || mb.inline || mb.head < len(mb.q) || mb.exited || mb.closing {
		mb.mu.Unlock()
		return false
	}
	mb.inline = true
	// As in poolboy's mailbox, the message was queued, alone, and taken
	// at once: the peak counts it.
	mb.peak = max(mb.peak, 1)
	mb.mu.Unlock()
	done := apply()
	mb.mu.Lock()
	mb.inline = false
	pending := mb.head < len(mb.q)
	mb.mu.Unlock()
	if pending {
		select {
		case mb.signal <- struct{}{}:
		default:
		}
	}
	return done
}

// pop takes the oldest message, waiting for one (and for a caller
// applying its own to finish).
func (mb *mailbox) pop() message {
	for {
		mb.mu.Lock()
		mb.managing = false
		if !mb.inline && mb.head < len(mb.q) {
			mb.managing = true
			m := mb.q[mb.head]
			mb.q[mb.head] = message{}
			mb.head++
			if mb.head == len(mb.q) {
				mb.q, mb.head = mb.q[:0], 0
			} else if mb.head > 1024 && mb.head*2 > len(mb.q) {
				n := copy(mb.q, mb.q[mb.head:])
				mb.q, mb.head = mb.q[:n], 0
			}
			mb.mu.Unlock()
			return m
		}
		mb.mu.Unlock()
		<-mb.signal
	}
}

// exitIfIdle marks the manager gone if no message is queued, so later
// pushes are refused rather than lost.
func (mb *mailbox) exitIfIdle() bool {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if mb.head < len(mb.q) {
		return false
	}
	mb.exited = true
	return true
}

// lengths returns the messages queued now and the most ever queued.
func (mb *mailbox) lengths() (now, peak int) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	return len(mb.q) - mb.head, mb.peak
}
