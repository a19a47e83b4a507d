package model

import (
	"sort"
	"time"
)

// Wake is how much longer the serial manager's real work (the dial that
// starts a worker, the close that dismisses one) takes when its goroutine
// has just slept: paying the previous cost, or waiting for a message. A
// dial right after another is a few tens of microseconds on loopback; after
// the process slept milliseconds, the connect's wake-ups (the manager's
// own, the poller's, the origin's accept) find idle CPUs, and on a
// virtual machine that costs a few hundred. The serial manager sleeps
// between every dial and close (its configured costs), so at a laptop
// scale's millisecond costs every dial it makes is a woken one. Points
// give, by how long the manager slept, the extra time over Costs.Dial and
// Costs.Close; between points it is interpolated, beyond the last it stays.
type Wake struct{ Points []WakePoint }

// WakePoint is one measured point of a Wake.
type WakePoint struct {
	Slept time.Duration // how long the manager slept before the work
	Dial  time.Duration // extra time of a dial over Costs.Dial
	Close time.Duration // extra time of a close over Costs.Close
}

// After returns the extra time of a dial and of a close after sleeping
// slept (none on a nil Wake).
func (w *Wake) After(slept time.Duration) (dial, close time.Duration) {
	if w == nil || len(w.Points) == 0 || slept <= 0 {
		return 0, 0
	}
	ps := w.Points
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Slept >= slept })
	switch {
	case i == len(ps):
		return ps[i-1].Dial, ps[i-1].Close
	case ps[i].Slept == slept:
		return ps[i].Dial, ps[i].Close
	}
	a := WakePoint{}
	if i > 0 {
		a = ps[i-1]
	}
	b := ps[i]
	f := float64(slept-a.Slept) / float64(b.Slept-a.Slept)
	lerp := func(x, y time.Duration) time.Duration { return x + time.Duration(f*float64(y-x)) }
	return lerp(a.Dial, b.Dial), lerp(a.Close, b.Close)
}
