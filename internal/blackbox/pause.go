package blackbox

import (
	"sync"
	"time"
)

// A pause is a stretch of wall time in which the machine did not run the
// calibration: the control goroutine overslept, or a request went out
// later than its schedule asked (its lag). A request in flight across a
// pause measured the machine as well as the target.
type pause struct{ from, to time.Time }

func (p pause) length() time.Duration { return p.to.Sub(p.from) }

// overlaps reports whether the pause meets [a, b].
func (p pause) overlaps(a, b time.Time) bool { return p.from.Before(b) && p.to.After(a) }

// minPause is the shortest gap the control goroutine records: below it,
// a loaded machine's ordinary scheduling delay.
const minPause = 2 * time.Millisecond

// watch is the calibration's control probe: a goroutine that wakes about
// every half millisecond beside the probe and records every gap longer
// than minPause between its wake-ups. On a loopback target, a gap it sees
// is a pause of the machine (the generator and the target share it); on
// a remote one, of the generator. Either way, the answers in flight
// across it are not the target's service time.
type watch struct {
	mu     sync.Mutex
	pauses []pause
	stop   chan struct{}
	done   chan struct{}
}

func startWatch() *watch {
	w := &watch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(500 * time.Microsecond)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			now := time.Now()
			if now.Sub(last) > minPause {
				w.mu.Lock()
				w.pauses = append(w.pauses, pause{last, now})
				w.mu.Unlock()
			}
			last = now
		}
	}()
	return w
}

// end stops the watch and returns the pauses it saw.
func (w *watch) end() []pause {
	close(w.stop)
	<-w.done
	return w.pauses
}
