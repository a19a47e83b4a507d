// Package attack is loadlab's open-model HTTP load generator: one pacer
// computes each request's due time from the schedule (no drift), hands it to
// an idle worker (at most MaxWorkers, started on demand) or records it as
// dropped, and every request yields a results.Result with its due time, send
// time and latency. Several Attackers can run at once in one process.
package attack

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/fdtable"
	"github.com/loadlab/loadlab/internal/harvest"
	"github.com/loadlab/loadlab/internal/http1"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// Errors recorded in the results of requests that were never sent. Reports
// count results whose Error starts with DroppedPrefix as dropped, apart from
// failures. A dropped result has Code 0, Latency 0, its Due time, and Sent
// set to when it was dropped.
const (
	DroppedPrefix = results.DroppedPrefix
	// ErrDropped: due while MaxWorkers requests were in flight.
	ErrDropped = DroppedPrefix + "max-workers reached"
	// ErrBehind: the generator itself stalled (CPU starved, paused) and the
	// request was more than CatchUp late when its turn came.
	ErrBehind = DroppedPrefix + "generator fell behind schedule"
)

// LateThreshold is how late a request must go out to count as late in
// Stats; the Go timer's granularity is about a millisecond.
const LateThreshold = time.Millisecond

// Stats are live counters of a running attack.
type Stats struct {
	Started  time.Time     // when the attack began
	Sent     uint64        // requests sent
	Done     uint64        // responses (or errors) received
	InFlight int64         // requests sent and not yet done
	Dropped  uint64        // requests not sent (max-workers reached or behind schedule)
	Late     uint64        // requests sent more than LateThreshold after their due time
	MaxLag   time.Duration // the latest a request went out
	Workers  int64         // workers started so far
	// Pacer is the pacer's mode now: PacerPrecise, or PacerBatched (asked
	// for, fallen back to, or no timerfd); "" before the attack paces and
	// for an unpaced one.
	Pacer string
	// Fallback, when not nil, says when and why the precise pacer fell
	// back to batching.
	Fallback *Fallback
}

// The pacer's modes as Attacker.mode holds them.
const (
	modePrecise = 1 + iota
	modeBatched
)

// Attacker runs one attack. Create it with New and call Run once.
type Attacker struct {
	opts  Options
	tr    targets.Targeter
	sched scheduleView
	// client is the wire, lean or net/http, chosen once in New.
	client http1.Client
	// lean holds the lean client's harvest poller, which the pacer reads
	// answers through (nil: no harvesting).
	lean *harvesting

	started                   atomic.Int64 // unix ns
	sent, done, dropped, late atomic.Uint64
	inFlight, workers, maxLag atomic.Int64
	seq                       atomic.Uint64
	stopSending               chan struct{}
	stopOnce                  sync.Once
	targetErr                 error
	targetErrOnce             sync.Once
	reqCtx                    context.Context
	sink                      *sink
	wg                        sync.WaitGroup
	ticks                     chan tick
	running                   atomic.Bool
	harvestEvery              time.Duration // see defaultHarvestEvery
	// mode is the pacer's mode now (modePrecise, modeBatched; 0 before
	// it paces), fallback set when the precise pacer fell back, and
	// fallbackLimit, when > 0, replaces FallbackLag (tests).
	mode          atomic.Int32
	fallback      atomic.Pointer[Fallback]
	fallbackLimit time.Duration
	// seed seeds every templated part of every request (Options.Seed, or
	// a random one): see targets.PartSeed.
	seed uint64
}

// scheduleView is what the attacker needs from a schedule.
type scheduleView interface {
	At(i uint64) (time.Duration, uint32, bool)
	Unpaced() bool
}

type tick struct {
	seq  uint64
	due  time.Time
	step uint32
}

// New prepares an attack of the targets handed out by tr.
func New(tr targets.Targeter, opts Options) (*Attacker, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	a := &Attacker{opts: opts, tr: tr, sched: opts.Schedule, stopSending: make(chan struct{}), harvestEvery: defaultHarvestEvery, seed: opts.Seed}
	for a.seed == 0 {
		a.seed = targets.NewRand(0).Uint64()
	}
	co, err := a.opts.wire(a.seed, a.noteSent)
	if err != nil {
		return nil, err
	}
	if a.client, err = http1.NewClient(co); err != nil {
		return nil, err
	}
	if p := a.client.Poller(); p != nil {
		a.lean = &harvesting{poll: p}
	}
	return a, nil
}

// Seed is the seed templates are rendered with: Options.Seed, or the
// random one chosen when it was 0. With it, the targets and a result's
// sequence number, the request really sent can be rendered again (see
// targets.PartSeed).
func (a *Attacker) Seed() uint64 { return a.seed }

// Targets is the attack's target list when it was read whole (nil for a
// lazily read stream).
func (a *Attacker) Targets() []*targets.Target {
	if rr, ok := a.tr.(interface{ Targets() []*targets.Target }); ok {
		return rr.Targets()
	}
	return nil
}

// Stats returns live counters; safe to call from any goroutine.
func (a *Attacker) Stats() Stats {
	var st Stats
	if ns := a.started.Load(); ns != 0 {
		st.Started = time.Unix(0, ns)
	}
	st.Sent = a.sent.Load()
	st.Done = a.done.Load()
	st.InFlight = a.inFlight.Load()
	st.Dropped = a.dropped.Load()
	st.Late = a.late.Load()
	st.MaxLag = time.Duration(a.maxLag.Load())
	st.Workers = a.workers.Load()
	switch a.mode.Load() {
	case modePrecise:
		st.Pacer = PacerPrecise
	case modeBatched:
		st.Pacer = PacerBatched
	}
	st.Fallback = a.fallback.Load()
	return st
}

// Run sends the requests of the schedule and calls out with each result,
// always from one goroutine; out must not keep the pointer. It returns when
// the schedule is done (and every response is in), or, once ctx is
// cancelled, after waiting for requests in flight for up to Timeout (30 s
// when Timeout is 0). The error is nil then; it is non-nil only when the
// targets failed (e.g. a bad line in a lazy target stream).
func (a *Attacker) Run(ctx context.Context, out func(*results.Result)) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("attack: Run called twice")
	}
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	a.reqCtx = reqCtx
	a.sink = newSink()
	collected := make(chan struct{})
	go func() {
		a.sink.run(out)
		close(collected)
	}()

	// On cancellation: stop sending now, stop waiting after the grace time.
	grace := a.opts.Timeout
	if grace <= 0 {
		grace = 30 * time.Second
	}
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			a.stop()
			select {
			case <-time.After(grace):
				cancelReqs()
				a.client.Abort()
			case <-finished:
			}
		case <-finished:
		}
	}()

	// Grow the descriptor table now: growing it under load, as connections
	// open, stops every thread for an RCU grace period (package fdtable).
	fdtable.Reserve(min(max(fdtable.Size, a.opts.MaxWorkers+1024), 1<<20))
	start := time.Now()
	if at := a.opts.StartAt; !at.IsZero() {
		// Wake a little early: a timer can fire late on a busy machine,
		// and the pacer waits for the first due time itself, precisely.
		if wait := time.Until(at) - startEarly; wait > 0 {
			select {
			case <-time.After(wait):
			case <-a.stopSending:
			}
		}
		start = at
	}
	a.started.Store(start.UnixNano())
	if a.sched.Unpaced() {
		a.runUnpaced(start)
	} else {
		a.ticks = make(chan tick)
		a.pace(start)
		close(a.ticks)
		a.harvestUntilDone()
	}
	a.wg.Wait()
	close(finished)
	a.sink.close()
	<-collected
	a.closeIdle()
	return a.targetErr
}

// startEarly is how long before a -start-at instant the attack wakes up
// to let the pacer send the first request on time.
const startEarly = 5 * time.Millisecond

// stop ends sending (idempotent).
func (a *Attacker) stop() { a.stopOnce.Do(func() { close(a.stopSending) }) }

func (a *Attacker) stopped() bool {
	select {
	case <-a.stopSending:
		return true
	default:
		return false
	}
}

// targetsEnded records the end (or failure) of a lazy target stream and
// stops the attack.
func (a *Attacker) targetsEnded(err error) {
	if !errors.Is(err, io.EOF) {
		a.targetErrOnce.Do(func() { a.targetErr = err })
	}
	a.stop()
}

// noteSent updates the live counters when a request goes out.
func (a *Attacker) noteSent(due, sent time.Time) {
	a.sent.Add(1)
	a.inFlight.Add(1)
	if due.IsZero() {
		return
	}
	lag := int64(sent.Sub(due))
	if lag > int64(LateThreshold) {
		a.late.Add(1)
	}
	for {
		m := a.maxLag.Load()
		if lag <= m || a.maxLag.CompareAndSwap(m, lag) {
			return
		}
	}
}

func (a *Attacker) closeIdle() { a.client.Close() }

// harvesting is the lean client's harvest poller, as the pacer uses it.
type harvesting struct{ poll *harvest.Poller }
