// Package breaker is the proxy's per-route circuit breaker. It counts errors
// (5xx in 500..504, 408, timeouts, pool timeouts) in fixed windows and opens
// when a window holds more than Threshold of them, as Belfrage's route state
// does. It recovers in one of two ways:
//
//   - Ramp (Belfrage): while open, throughput is 0% for a window, then each
//     window without too many errors raises it to the next step (20%, 60%,
//     100% by default); a bad window drops it back to 0%.
//   - HalfOpen: after OpenFor, up to Probes requests go through; when they
//     all succeed the breaker closes, any failure reopens it.
//
// Time is read lazily on each call, so a breaker costs no goroutine.
package breaker

import (
	"sync"
	"time"
)

// IsError says whether a response status counts against the breaker
// (Belfrage's rule: 500..504 and 408).
func IsError(status int) bool {
	return (status >= 500 && status <= 504) || status == 408
}

// Mode selects how an open breaker recovers.
type Mode int

const (
	// Ramp restores throughput in steps over successive windows (Belfrage).
	Ramp Mode = iota
	// HalfOpen lets a few probe requests through after a pause.
	HalfOpen
)

// String names the mode as the config does.
func (m Mode) String() string {
	if m == HalfOpen {
		return "half_open"
	}
	return "ramp"
}

// State is a breaker's position.
type State int

const (
	// Closed lets everything through.
	Closed State = iota
	// Open rejects everything (ramp at 0%, or half-open mode pausing).
	Open
	// Recovering lets part of the traffic through (ramp step below 100%).
	Recovering
	// Probing lets half-open probes through.
	Probing
)

// String names the state for metrics and status.
func (s State) String() string {
	switch s {
	case Open:
		return "open"
	case Recovering:
		return "recovering"
	case Probing:
		return "half_open"
	}
	return "closed"
}

// States lists every state, for metrics.
var States = []State{Closed, Open, Recovering, Probing}

// Config tunes a breaker.
type Config struct {
	Window    time.Duration // error-counting window (Belfrage: 60s)
	Threshold int           // opens when a window holds more errors than this
	Mode      Mode
	Ramp      []int         // Ramp mode: throughput percentages after 0%, ending at 100
	OpenFor   time.Duration // HalfOpen mode: pause before probing
	Probes    int           // HalfOpen mode: successful probes needed to close
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Breaker is one route's circuit breaker; safe for concurrent use.
type Breaker struct {
	cfg Config
	now func() time.Time

	mu          sync.Mutex
	state       State
	step        int // index into cfg.Ramp while Recovering
	throughput  int // percent let through
	acc         int // ramp admission accumulator
	windowStart time.Time
	requests    int
	errors      int
	openedAt    time.Time
	probesOut   int // half-open probes admitted
	probesOK    int
	transitions map[[2]State]uint64
	rejected    uint64
}

// New builds a closed breaker.
func New(cfg Config) *Breaker {
	if len(cfg.Ramp) == 0 {
		cfg.Ramp = []int{20, 60, 100}
	}
	if cfg.Probes <= 0 {
		cfg.Probes = 1
	}
	if cfg.OpenFor <= 0 {
		cfg.OpenFor = cfg.Window
	}
	b := &Breaker{cfg: cfg, now: cfg.Now, throughput: 100, transitions: map[[2]State]uint64{}}
	if b.now == nil {
		b.now = time.Now
	}
	b.windowStart = b.now()
	return b
}

// Config returns the breaker's configuration.
func (b *Breaker) Config() Config { return b.cfg }

// Allow reports whether a request may go upstream now. Rejected requests
// must not be recorded.
func (b *Breaker) Allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	ok := false
	switch b.state {
	case Closed:
		ok = true
	case Recovering:
		b.acc += b.throughput
		if b.acc >= 100 {
			b.acc -= 100
			ok = true
		}
	case Probing:
		if b.probesOut < b.cfg.Probes {
			b.probesOut++
			ok = true
		}
	}
	if !ok {
		b.rejected++
	}
	return ok
}

// Record counts the outcome of an allowed request.
func (b *Breaker) Record(failed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	b.requests++
	if failed {
		b.errors++
	}
	switch b.state {
	case Closed, Recovering:
		if b.errors > b.cfg.Threshold {
			b.open()
		}
	case Probing:
		if failed {
			b.open()
			return
		}
		b.probesOK++
		if b.probesOK >= b.cfg.Probes {
			b.set(Closed)
			b.throughput = 100
			b.resetWindow()
		}
	case Open:
		// A request admitted before the breaker opened; its outcome is
		// already reflected.
	}
}

// Forget releases an allowed request that ended without an outcome (the
// client left, or it was retried elsewhere), so that a half-open probe slot
// is not held forever.
func (b *Breaker) Forget() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Probing && b.probesOut > b.probesOK {
		b.probesOut--
	}
}

// open rejects everything from now on; b.mu held.
func (b *Breaker) open() {
	b.set(Open)
	b.throughput = 0
	b.openedAt = b.now()
	b.probesOut, b.probesOK = 0, 0
	b.resetWindow()
}

func (b *Breaker) resetWindow() {
	b.windowStart = b.now()
	b.requests, b.errors, b.acc = 0, 0, 0
}

// advance rolls windows and timers forward to now; b.mu held.
func (b *Breaker) advance() {
	now := b.now()
	if b.cfg.Mode == HalfOpen {
		if b.state == Open && now.Sub(b.openedAt) >= b.cfg.OpenFor {
			b.set(Probing)
			b.probesOut, b.probesOK = 0, 0
		}
		if b.state == Closed && now.Sub(b.windowStart) >= b.cfg.Window {
			b.resetWindow()
		}
		return
	}
	for now.Sub(b.windowStart) >= b.cfg.Window {
		// A window ended without tripping the threshold (tripping resets
		// the window at once): ramp one step up.
		switch b.state {
		case Open:
			b.step = 0
			b.throughput = b.cfg.Ramp[0]
			b.set(Recovering)
		case Recovering:
			b.step++
			if b.step < len(b.cfg.Ramp) {
				b.throughput = b.cfg.Ramp[b.step]
			} else {
				b.throughput = 100
			}
		}
		if b.state == Recovering && b.throughput >= 100 {
			b.set(Closed)
			b.throughput = 100
		}
		b.requests, b.errors, b.acc = 0, 0, 0
		if b.state == Closed {
			// Skip the windows that passed in one go.
			n := now.Sub(b.windowStart) / b.cfg.Window
			b.windowStart = b.windowStart.Add(n * b.cfg.Window)
			return
		}
		b.windowStart = b.windowStart.Add(b.cfg.Window)
	}
}

func (b *Breaker) set(s State) {
	if s == b.state {
		return
	}
	b.transitions[[2]State{b.state, s}]++
	b.state = s
}

// Snapshot is a breaker's state at one instant.
type Snapshot struct {
	State       string            `json:"state"`
	Mode        string            `json:"mode"`
	Throughput  int               `json:"throughput_percent"`
	Requests    int               `json:"window_requests"`
	Errors      int               `json:"window_errors"`
	Threshold   int               `json:"threshold"`
	Rejected    uint64            `json:"rejected"`
	Transitions map[string]uint64 `json:"transitions"` // "closed->open": n
}

// Snapshot reports the breaker's state, rolling time forward first.
func (b *Breaker) Snapshot() Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	s := Snapshot{
		State: b.state.String(), Mode: b.cfg.Mode.String(), Throughput: b.throughput,
		Requests: b.requests, Errors: b.errors, Threshold: b.cfg.Threshold, Rejected: b.rejected,
		Transitions: map[string]uint64{},
	}
	for k, n := range b.transitions {
		s.Transitions[k[0].String()+"->"+k[1].String()] = n
	}
	return s
}
