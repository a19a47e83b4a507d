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
	earlyStep = time.Microsecond
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
// when to sleep, spin and send. Its margin follows the median lateness:
// each observation moves it a microsecond towards the sample, so a few
// wake-ups delayed by milliseconds (the pacer's CPU taken by another
// process) move it by a few microseconds, not by their size.
type earlyWake struct {
	margin time.Duration
	now    func() time.Time // time.Now; a virtual clock in tests
}

// plan says what to do for a request due in left (due minus now): send
// when due, spin when the timer could not wake the pacer before the due
// time anyway, else sleep for the returned duration (left minus the
// margin) and decide again.
func (e *earlyWake) plan(left time.Duration) (paceAction, time.Duration) {
	switch {
	case left <= 0:
		return paceSend, 0
	case left <= e.margin+spinBelow:
		return paceSpin, left
	default:
		return paceSleep, left - e.margin
	}
}

// observe records that a sleep ended late after its target instant.
func (e *earlyWake) observe(late time.Duration) {
	switch {
	case late > e.margin:
		e.margin = min(e.margin+earlyStep, maxEarly)
	case late < e.margin:
		e.margin = max(e.margin-earlyStep, 0)
	}
}

// waitPrecise waits until due with the precise pacer's sleep (the pace
// timer) and ew, and returns false if the attack was stopped during a
// sleep. When the lean client harvests, answers are collected when the
// pacer is about to sleep, not before a send: the answers that arrived
// since the last send, and then at least every a.harvestEvery while
// requests are in flight. A pacer that is behind does not sleep and so
// does not harvest; handOffPrecise does when it finds no idle worker.
func (a *Attacker) waitPrecise(sleep func(time.Duration) bool, ew *earlyWake, due time.Time) bool {
	poll := a.poller()
	now := ew.now
	if now == nil {
		now = time.Now
	}
	harvested := false
	for {
		act, d := ew.plan(due.Sub(now()))
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
		target := now().Add(d)
		if !sleep(d) {
			return false
		}
		ew.observe(now().Sub(target))
		harvested = !chunk
	}
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
