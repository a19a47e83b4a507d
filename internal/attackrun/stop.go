package attackrun

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// StopRule stops a job's attacks when too many of their requests fail:
// more than Ratio of the results of the last Window, once at least
// MinRequests came in that window.
type StopRule struct {
	Ratio       float64 // 0..1; 0: never stop
	Window      time.Duration
	MinRequests int
}

// ErrorRatioError is why a StopRule stopped the attacks.
type ErrorRatioError struct {
	Ratio, Limit float64
	Window       time.Duration
}

func (e *ErrorRatioError) Error() string {
	return fmt.Sprintf("error ratio %.1f%% over the last %s exceeded the stop condition (%.1f%%)", 100*e.Ratio, e.Window, 100*e.Limit)
}

// window counts results per second for the stop rule, and checks it every
// FlushEvery until stopped.
type window struct {
	mu      sync.Mutex
	buckets map[int64][2]uint64 // unix second -> total, errors
	done    chan struct{}
	ended   sync.WaitGroup
}

var _ results.Sink = (*window)(nil)

// watch starts checking the rule against the results handed to the
// returned sink, and cancels ctx with an *ErrorRatioError when it is
// crossed. Nil when the rule never stops.
func (s StopRule) watch(ctx context.Context, cancel context.CancelCauseFunc) *window {
	if s.Ratio <= 0 {
		return nil
	}
	w := &window{buckets: map[int64][2]uint64{}, done: make(chan struct{})}
	w.ended.Add(1)
	go func() {
		defer w.ended.Done()
		t := time.NewTicker(FlushEvery)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-ctx.Done():
				return
			case now := <-t.C:
				n, ratio := w.ratio(now, s.Window)
				if n >= uint64(s.MinRequests) && ratio > s.Ratio {
					cancel(&ErrorRatioError{Ratio: ratio, Limit: s.Ratio, Window: s.Window})
					return
				}
			}
		}
	}()
	return w
}

// stop ends the checks.
func (w *window) stop() {
	close(w.done)
	w.ended.Wait()
}

// Add counts r in the second it arrives in.
func (w *window) Add(r *results.Result) {
	t := time.Now()
	w.mu.Lock()
	b := w.buckets[t.Unix()]
	b[0]++
	if !r.Success() {
		b[1]++
	}
	w.buckets[t.Unix()] = b
	w.mu.Unlock()
}

// ratio is the results of the last span and the share of them that failed.
func (w *window) ratio(now time.Time, span time.Duration) (total uint64, ratio float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	from := now.Add(-span).Unix()
	var errs uint64
	for s, b := range w.buckets {
		if s < from {
			delete(w.buckets, s)
			continue
		}
		total += b[0]
		errs += b[1]
	}
	if total == 0 {
		return 0, 0
	}
	return total, float64(errs) / float64(total)
}
