package attack

import (
	"runtime"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// pace is the single pacer: it waits for each due time and hands the
// request to an idle worker, starts a worker while fewer than MaxWorkers
// exist, or records the request as dropped.
func (a *Attacker) pace(start time.Time) {
	sleep, release := a.sleeper()
	defer release()
	for i := uint64(0); ; i++ {
		off, step, ok := a.sched.At(i)
		if !ok {
			return
		}
		due := start.Add(off)
		if wait := time.Until(due); wait > 0 {
			if !sleep(wait) {
				return
			}
		} else if a.stopped() {
			return
		} else if -wait > a.opts.CatchUp {
			a.drop(i, due, step, ErrBehind)
			continue
		}
		tk := tick{seq: i, due: due, step: step}
		select {
		case a.ticks <- tk:
			continue
		default:
		}
		if a.workers.Load() < int64(a.opts.MaxWorkers) {
			a.startWorker(&tk)
			continue
		}
		// A worker may have just finished and not be back at the channel
		// yet: let it run once before calling the request dropped.
		runtime.Gosched()
		select {
		case a.ticks <- tk:
			continue
		default:
		}
		a.drop(i, due, step, ErrDropped)
	}
}

// sleeper returns the pacer's sleep, which waits d (> 0) and returns false
// if the attack was stopped meanwhile, and a release for the end of
// pacing. It is a Go timer, or with Options.Precise a paceTimer where the
// system has one.
func (a *Attacker) sleeper() (sleep func(time.Duration) bool, release func()) {
	if a.opts.Precise {
		if pt := newPaceTimer(); pt != nil {
			released := make(chan struct{})
			go func() {
				select {
				case <-a.stopSending:
					pt.interrupt()
				case <-released:
				}
			}()
			return pt.wait, func() { close(released); pt.close() }
		}
	}
	timer := time.NewTimer(time.Hour)
	return func(d time.Duration) bool {
		timer.Reset(d)
		select {
		case <-timer.C:
			return true
		case <-a.stopSending:
			return false
		}
	}, func() { timer.Stop() }
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
	for range a.opts.MaxWorkers {
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
				w.fire(a.seq.Add(1)-1, time.Time{}, 0)
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
