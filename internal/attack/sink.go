package attack

import (
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// sink funnels results from the workers to one goroutine in batches: the
// workers append under a mutex (no goroutine hand-off per request), the
// collector swaps the batch out every few milliseconds and calls out for
// each result.
type sink struct {
	mu      sync.Mutex
	notFull *sync.Cond
	buf     []results.Result
	spare   []results.Result
	closed  bool
	wake    chan struct{}
}

const (
	sinkBatch   = 512     // wake the collector early at this many results
	sinkMax     = 1 << 16 // workers wait beyond this many undelivered results
	sinkTick    = 10 * time.Millisecond
	sinkInitCap = 1024
)

func newSink() *sink {
	s := &sink{
		buf:   make([]results.Result, 0, sinkInitCap),
		spare: make([]results.Result, 0, sinkInitCap),
		wake:  make(chan struct{}, 1),
	}
	s.notFull = sync.NewCond(&s.mu)
	return s
}

// put copies r into the batch.
func (s *sink) put(r *results.Result) {
	s.mu.Lock()
	for len(s.buf) >= sinkMax && !s.closed {
		s.notFull.Wait()
	}
	s.buf = append(s.buf, *r)
	n := len(s.buf)
	s.mu.Unlock()
	if n == sinkBatch {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// close makes the collector deliver what is left and return.
func (s *sink) close() {
	s.mu.Lock()
	s.closed = true
	s.notFull.Broadcast()
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run delivers batches to out until close, then delivers the rest.
func (s *sink) run(out func(*results.Result)) {
	t := time.NewTicker(sinkTick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-s.wake:
		}
		s.mu.Lock()
		s.buf, s.spare = s.spare[:0], s.buf
		closed := s.closed
		s.notFull.Broadcast()
		s.mu.Unlock()
		for i := range s.spare {
			out(&s.spare[i])
		}
		clear(s.spare) // drop references to strings and bodies
		if closed {
			s.mu.Lock()
			rest := len(s.buf)
			s.mu.Unlock()
			if rest == 0 {
				return
			}
		}
	}
}
