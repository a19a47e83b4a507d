package attack

import (
	"runtime"
	"time"

	"github.com/loadlab/loadlab/internal/harvest"
	"github.com/loadlab/loadlab/internal/results"
)

// pace is the single pacer: it waits for each due time and hands the
// request to an idle worker, starts a worker while fewer than MaxWorkers
// exist, or records the request as dropped.
//
// The precise pacer (the default) watches its own lag and falls back to
// batching when it cannot keep it (see lagWatch); the attack's Stats say
// so.
func (a *Attacker) pace(start time.Time) {
	sl := a.sleeper()
	defer sl.release()
	precise := sl.precise != nil && a.opts.Pacer != PacerBatched
	a.mode.Store(modeBatched)
	if precise {
		a.mode.Store(modePrecise)
	}
	var ew earlyWake
	watch := newLagWatch()
	if a.fallbackLimit > 0 {
		watch.limit = a.fallbackLimit
	}
	seg := a.opts.Segment
	next := func(i uint64) uint64 { return i }
	if seg != nil {
		next = seg.Next
	}
	for i := next(0); ; i = next(i + 1) {
		off, step, ok := a.sched.At(i)
		if !ok {
			return
		}
		due := start.Add(off)
		switch wait := time.Until(due); {
		case wait > 0 && precise:
			j := i
			wake, then := microBatch(due, func() (time.Time, bool) {
				j = next(j + 1)
				off, _, ok := a.sched.At(j)
				return start.Add(off), ok
			})
			if !a.waitPrecise(sl.precise, &ew, wake, then) {
				return
			}
		case wait > 0:
			if !a.sleepUntil(sl.batched, due, wait) {
				return
			}
		case a.stopped():
			return
		case -wait > a.opts.CatchUp:
			a.drop(i, due, step, ErrBehind)
			continue
		}
		tk := tick{seq: i, due: due, step: step}
		if !precise {
			a.handOff(tk)
			continue
		}
		now := time.Now()
		a.handOffPrecise(tk)
		if fb, ok := watch.observe(now, now.Sub(due)); ok {
			fb.At = now.Sub(start)
			a.fallback.Store(fb)
			a.mode.Store(modeBatched)
			precise = false
		}
	}
}

// handOff gives the due request tk to an idle worker, starts a worker for
// it while fewer than MaxWorkers exist, or records it as dropped.
func (a *Attacker) handOff(tk tick) {
	select {
	case a.ticks <- tk:
		return
	default:
	}
	if a.workers.Load() < int64(a.opts.MaxWorkers) {
		a.startWorker(&tk)
		return
	}
	// A worker may have just finished and not be back at the channel
	// yet: let it run once before calling the request dropped.
	runtime.Gosched()
	select {
	case a.ticks <- tk:
		return
	default:
	}
	a.drop(tk.seq, tk.due, tk.step, ErrDropped)
}

// defaultHarvestEvery is how often a harvesting pacer looks at the sockets
// while requests are in flight and nothing is due: the longest an answer
// that has arrived waits to be read (its latency is not affected).
const defaultHarvestEvery = 5 * time.Millisecond

// poller returns the lean client's harvest poller, or nil.
func (a *Attacker) poller() *harvest.Poller {
	if a.lean == nil {
		return nil
	}
	return a.lean.poll
}

// sleepUntil sleeps until due (wait from now). When the lean client
// harvests, each wake-up then collects the answers that arrived meanwhile
// and lets their workers finish first, so they are free for the requests
// now due; while requests are in flight it wakes at least every
// a.harvestEvery.
func (a *Attacker) sleepUntil(sleep func(time.Duration) bool, due time.Time, wait time.Duration) bool {
	poll := a.poller()
	if poll == nil {
		return sleep(wait)
	}
	for wait > 0 {
		d := wait
		if a.inFlight.Load() > 0 {
			d = min(d, a.harvestEvery)
		}
		if !sleep(d) {
			return false
		}
		if poll.Harvest() > 0 {
			runtime.Gosched()
		}
		wait = time.Until(due)
	}
	return true
}

// harvestUntilDone keeps collecting answers after the last request was
// sent, until every worker is done (a harvesting lean client only).
func (a *Attacker) harvestUntilDone() {
	poll := a.poller()
	if poll == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		a.wg.Wait()
		close(done)
	}()
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-done:
			return
		case <-tk.C:
			poll.Harvest()
		}
	}
}

// sleeps are the pacer's two ways to wait: each returns false if the
// attack was stopped meanwhile; release ends pacing.
type sleeps struct {
	// precise always waits on the paceTimer (nil where there is none):
	// the precise pacer's, with waitPrecise.
	precise preciseSleep
	// batched waits a millisecond or more on the paceTimer: Go's timer
	// would take two wake-ups for it (epoll_wait's millisecond timeout
	// wakes early, then rounds the rest up to a millisecond, late), the
	// timerfd one, on time. Shorter waits use Go's timer, whose
	// millisecond granularity lets the requests due within it share one
	// wake-up: fewer wake-ups at high rates, for up to 1 ms of lag.
	batched func(time.Duration) bool
	release func()
}

// sleeper returns the pacer's sleeps. With Options.Pacer precise (and a
// paceTimer), the process's threads also get a short time slice for as
// long as the attack paces (slice_linux.go).
func (a *Attacker) sleeper() sleeps {
	timer := time.NewTimer(time.Hour)
	goSleep := func(d time.Duration) bool {
		timer.Reset(d)
		select {
		case <-timer.C:
			return true
		case <-a.stopSending:
			return false
		}
	}
	pt := newPaceTimer()
	if pt == nil {
		return sleeps{batched: goSleep, release: func() { timer.Stop() }}
	}
	released := make(chan struct{})
	go func() {
		select {
		case <-a.stopSending:
			pt.interrupt()
		case <-released:
		}
	}()
	release := func() { close(released); pt.close(); timer.Stop() }
	s := sleeps{precise: pt.sleepUntil, release: release, batched: func(d time.Duration) bool {
		if d >= time.Millisecond {
			return pt.wait(d)
		}
		return goSleep(d)
	}}
	if a.opts.Pacer != PacerBatched {
		// The precise pacer's wake-ups also take the CPU at once from other
		// processes (slice_linux.go).
		unslice := useShortSlice()
		s.release = func() { release(); unslice() }
	}
	return s
}

func (a *Attacker) startWorker(first *tick) {
	a.workers.Add(1)
	a.wg.Add(1)
	w := a.newWorker()
	tk := *first
	go func() {
		defer a.wg.Done()
		w.fire(tk.seq, tk.due, tk.step)
		for tk := range a.ticks {
			w.fire(tk.seq, tk.due, tk.step)
		}
	}()
}

// runUnpaced runs MaxWorkers workers that send back to back until the
// duration is over or the attack is stopped.
func (a *Attacker) runUnpaced(start time.Time) {
	var end time.Time
	if d := a.opts.Schedule.Duration; d > 0 {
		end = start.Add(d)
	}
	workers := a.opts.MaxWorkers
	seq := func(n uint64) uint64 { return n }
	if seg := a.opts.Segment; seg != nil {
		// This shard's share of the workers, and of the sequence numbers.
		workers, seq = seg.Share(workers), seg.Nth
	}
	for range workers {
		a.workers.Add(1)
		a.wg.Add(1)
		w := a.newWorker()
		go func() {
			defer a.wg.Done()
			for !a.stopped() {
				now := time.Now()
				if !end.IsZero() && !now.Before(end) {
					return
				}
				w.fire(seq(a.seq.Add(1)-1), time.Time{}, 0)
			}
		}()
	}
}

// drop records a request that was due but not sent.
func (a *Attacker) drop(seq uint64, due time.Time, step uint32, why string) {
	a.dropped.Add(1)
	r := results.Result{Attack: a.opts.Name, Seq: seq, Due: due, Sent: time.Now(), Error: why, Step: step}
	if j := a.opts.Journey; j != nil {
		j.Dropped(&r)
	}
	a.sink.put(&r)
}
