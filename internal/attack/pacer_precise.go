package attack

import (
	"runtime"
	"time"
)

// The precise pacer (Options.Pacer precise, the default) wakes for every due instant. Even a
// timerfd wakes the pacer late: the timer interrupt, the thread's wake-up
// and the runtime's poller take 22-24 µs at the median on the VM the
// benchmarks ran on (BenchmarkPaceTimerIdle, p99 78-86 µs), which alone
// was most of -precise's 40 µs median lag. So the precise pacer sets its
// timer that much before the due time and spins through the rest, on a
// monotonic clock, never past the due time: the request still goes out at
// or after it (Sent ≥ Due), only no longer a wake-up's latency after it.

// Bounds of the early wake-up: the margin never exceeds maxEarly (a
// stalled or descheduled pacer wakes milliseconds late, which says
// nothing of the timer), and a wait that would end within spinBelow of
// the margin is spun rather than slept (arming a timer for a few
// microseconds costs more than the wait).
const (
	maxEarly  = 100 * time.Microsecond
	spinBelow = 5 * time.Microsecond
	// The margin's steps (see earlyWake): up after a later wake-up, down
	// three times as far after an earlier one.
	earlyUp   = time.Microsecond
	earlyDown = 3 * time.Microsecond
)

// spinShare bounds the early wake-up by the gap to the next request:
// the pacer wakes at most a quarter of the gap early. The spin is paid
// per request: at 20,000 requests/s (50 µs apart) a full margin of
// 20-30 µs left the generator too little time to sleep at all, and it
// spun through half of every gap; with the bound it sleeps, and its lag
// is the wake-up's error less the shorter margin (tens of
// microseconds). At 5,000/s and below the bound is above the margin and
// changes nothing.
const spinShare = 4

// batchLag is the precise pacer's lag budget for a micro-batch: the
// requests due within batchLag of the first one not yet sent share one
// wake-up, at the last one's due time, so none goes out before its due
// time and none is held back by more than batchLag (plus the wake-up's
// own error). At a steady rate that happens only above 1/batchLag
// (40,000 requests/s); below it, for requests due together (several
// steps of a schedule at one instant, a burst).
const (
	batchLag = 25 * time.Microsecond
	maxBatch = 64 // requests looked ahead for one micro-batch
)

// paceAction is what the precise pacer does next for the request it waits
// for.
type paceAction int

const (
	paceSend  paceAction = iota // due: send now
	paceSpin                    // due within the wake-up margin: spin until due
	paceSleep                   // sleep, then decide again
)

// earlyWake tracks how late the pace timer wakes the pacer and decides
// when to sleep, spin and send. Its margin follows the lower quartile of
// the lateness: each observation moves it towards the sample, a
// microsecond up or three down, so it settles where a quarter of the
// wake-ups come earlier; a few wake-ups delayed by milliseconds (the
// pacer's CPU taken by another process) move it by a few microseconds,
// not by their size. A wake-up earlier than the margin spins the rest
// and sends on time; a later one sends late by the difference. The
// median, followed until 2026-12-08, spun half of the wake-ups, and on a
// busy machine, where the lateness spreads, the spin was 12% of the
// generator's CPU at 5,000/s (perf, __vdso_clock_gettime inside
// waitPrecise); the lower quartile spins a quarter, by less, for a lag
// p50 of the lateness's p50 less its p25 (a few microseconds quiet).
type earlyWake struct {
	margin time.Duration
	now    func() time.Time // time.Now; a virtual clock in tests
}

// plan says what to do for a request due in left (due minus now), the
// next one due gap after it (0: none): send when due, spin when the
// timer could not wake the pacer before the due time anyway, else sleep
// for the returned duration (left minus the early wake-up) and decide
// again.
func (e *earlyWake) plan(left, gap time.Duration) (paceAction, time.Duration) {
	early := e.early(gap)
	switch {
	case left <= 0:
		return paceSend, 0
	case left <= early+spinBelow:
		return paceSpin, left
	default:
		return paceSleep, left - early
	}
}

// early is how long before a due time the pacer sets its timer: the
// margin, at most a spinShare of the gap to the next request.
func (e *earlyWake) early(gap time.Duration) time.Duration {
	if gap > 0 {
		return min(e.margin, gap/spinShare)
	}
	return e.margin
}

// observe records that a sleep ended late after its target instant.
func (e *earlyWake) observe(late time.Duration) {
	switch {
	case late > e.margin:
		e.margin = min(e.margin+earlyUp, maxEarly)
	case late < e.margin:
		e.margin = max(e.margin-earlyDown, 0)
	}
}

// preciseSleep sleeps until at, arming the wait after it for then (zero:
// none), and returns the instant it waited for (within rearmBelow of
// at) and false if the attack was stopped: paceTimer.sleepUntil, or a
// virtual clock in tests.
type preciseSleep func(at, then time.Time) (time.Time, bool)

// waitPrecise waits until due with the precise pacer's sleep and ew, and
// returns false if the attack was stopped during a sleep. then is when
// the request after it is due (zero: none): the early wake-up is bounded
// by the gap, and the timer for then is armed before the pacer sleeps
// (see paceTimer). When the lean client harvests, answers are collected
// when the pacer is about to sleep, not before a send: the answers that
// arrived since the last send, and then at least every a.harvestEvery
// while requests are in flight. A pacer that is behind does not sleep
// and so does not harvest; handOffPrecise does when it finds no idle
// worker.
func (a *Attacker) waitPrecise(sleep preciseSleep, ew *earlyWake, due, then time.Time) bool {
	poll := a.poller()
	now := ew.now
	if now == nil {
		now = time.Now
	}
	var gap time.Duration
	if !then.IsZero() {
		gap = then.Sub(due)
	}
	harvested := false
	for {
		act, d := ew.plan(due.Sub(now()), gap)
		switch act {
		case paceSend:
			return true
		case paceSpin:
			for now().Before(due) {
			}
			return true
		}
		if poll != nil && !harvested {
			harvested = true
			if poll.Harvest() > 0 {
				runtime.Gosched() // the workers finish; then plan again
				continue
			}
		}
		chunk := poll != nil && a.inFlight.Load() > 0 && d > a.harvestEvery
		if chunk {
			d = a.harvestEvery
		}
		var next time.Time
		if !chunk && !then.IsZero() {
			next = then.Add(-ew.early(gap)) // as the next wait will want it at this pace
		}
		woke, ok := sleep(now().Add(d), next)
		if !ok {
			return false
		}
		ew.observe(now().Sub(woke))
		harvested = !chunk
	}
}

// microBatch returns the due time the precise pacer wakes for when the
// first request not yet sent is due at due and following returns the due
// times of the requests after it, one per call (false past the
// schedule's end): the last one due within batchLag of due (due itself
// when none is), and the due time of the request after that one (zero:
// none).
func microBatch(due time.Time, following func() (time.Time, bool)) (wake, then time.Time) {
	wake = due
	for range maxBatch {
		d, ok := following()
		if !ok {
			return wake, time.Time{}
		}
		if d.Sub(due) > batchLag {
			return wake, d
		}
		wake = d
	}
	return wake, time.Time{}
}

// handOffPrecise hands tk to a worker (see handOff) and lets it send at
// once, before the pacer harvests or arms its next wait. With no idle
// worker it first collects the answers that have arrived, so that their
// workers, not new connections, take the request.
func (a *Attacker) handOffPrecise(tk tick) {
	select {
	case a.ticks <- tk:
	default:
		if poll := a.poller(); poll != nil && poll.Harvest() > 0 {
			runtime.Gosched()
		}
		a.handOff(tk)
	}
	runtime.Gosched()
}
