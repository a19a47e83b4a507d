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
func (a *Attacker) pace(start time.Time) {
	sleep, release, precise := a.sleeper()
	defer release()
	var ew earlyWake
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
			if !a.waitPrecise(sleep, &ew, due) {
				return
			}
		case wait > 0:
			if !a.sleepUntil(sleep, due, wait) {
				return
			}
		case a.stopped():
			return
		case -wait > a.opts.CatchUp:
			a.drop(i, due, step, ErrBehind)
			continue
		}
		if tk := (tick{seq: i, due: due, step: step}); precise {
			a.handOffPrecise(tk)
		} else {
			a.handOff(tk)
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

// sleeper returns the pacer's sleep, which waits d (> 0) and returns false
// if the attack was stopped meanwhile, and a release for the end of
// pacing. Where the system has a paceTimer, a wait of a millisecond or
// more uses it: Go's timer would take two wake-ups for it (epoll_wait's
// millisecond timeout wakes early, then rounds the rest up to a
// millisecond, late), the timerfd one, on time. Shorter waits use Go's
// timer, whose millisecond granularity lets the requests due within it
// share one wake-up: fewer wake-ups at high rates, for up to 1 ms of lag.
// With Options.Precise every wait uses the paceTimer, and precise says
// the pacer is to wait with waitPrecise (false where there is no
// paceTimer: Options.Precise is then ignored).
func (a *Attacker) sleeper() (sleep func(time.Duration) bool, release func(), precise bool) {
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
		return goSleep, func() { timer.Stop() }, false
	}
	released := make(chan struct{})
	go func() {
		select {
		case <-a.stopSending:
			pt.interrupt()
		case <-released:
		}
	}()
	release = func() { close(released); pt.close(); timer.Stop() }
	if a.opts.Precise {
		// The precise pacer's wake-ups also take the CPU at once from other
		// processes (slice_linux.go).
		unslice, untimer := useShortSlice(), release
		return pt.wait, func() { untimer(); unslice() }, true
	}
	return func(d time.Duration) bool {
		if d >= time.Millisecond {
			return pt.wait(d)
		}
		return goSleep(d)
	}, release, false
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
	a.sink.put(&r)
}
