package live

import (
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// Point is one second of the run. Latencies, codes and lag are those of
// the requests answered in that second; Sent and InFlight come from the
// attack's counters when it has them, so a slow server shows as requests
// sent and not answered rather than as a lower sending rate.
type Point struct {
	ID       uint64            `json:"id"`
	T        float64           `json:"t"` // seconds since the view started
	Sent     uint64            `json:"sent"`
	Answered uint64            `json:"answered"` // responses with a status
	OK       uint64            `json:"ok"`       // 2xx and 3xx
	Codes    map[string]uint64 `json:"codes"`    // "200": n, "0": errors without a status, "dropped": not sent
	P50      float64           `json:"p50"`      // ms, from the due time
	P90      float64           `json:"p90"`
	P99      float64           `json:"p99"`
	Max      float64           `json:"max"`
	LagMax   float64           `json:"lag_max"` // ms
	// LagP50 is the median schedule lag (sent − due) of the second's
	// requests, in ms: the generator's own part of the latency p50 beside it.
	LagP50 float64 `json:"lag_p50"`
	// Pacer is the attack's pacer: "precise", "batched", or, once the
	// precise pacer fell back, "batched: " and why (attack.Fallback).
	Pacer    string             `json:"pacer,omitempty"`
	InFlight int64              `json:"in_flight"`
	Metrics  map[string]float64 `json:"metrics,omitempty"` // sampled server metrics, latest values
	Step     *Step              `json:"step,omitempty"`
	Ended    bool               `json:"ended,omitempty"`
	// Run, on the last point only, is the whole run's figures: the page's
	// header shows them once the run has ended, not its last second's.
	Run *Totals `json:"run,omitempty"`
}

// Totals are a whole run's figures, as its report counts them.
type Totals struct {
	Requests uint64  `json:"requests"` // answered or failed (dropped excluded)
	Dropped  uint64  `json:"dropped"`
	Success  float64 `json:"success"` // ratio 0..1 of Requests
	P50      float64 `json:"p50"`     // ms, from the due time
	P99      float64 `json:"p99"`
	Max      float64 `json:"max"`
}

// Step is the step in progress: one step of an experiment, or the attack
// itself.
type Step struct {
	Name          string    `json:"name"`
	Index         int       `json:"index,omitempty"` // 1-based; 0 for an attack
	Of            int       `json:"of,omitempty"`
	Rate          string    `json:"rate"`
	Configuration string    `json:"configuration,omitempty"`
	Ends          time.Time `json:"ends,omitzero"`  // zero while unknown (components starting, or no duration)
	Left          float64   `json:"left,omitempty"` // seconds to Ends when the point was taken
	// For, when Ends is zero, is how long the step lasts from the
	// attack's start (its counters' Started): an attack's -duration.
	For time.Duration `json:"-"`
}

// bucket gathers the results answered in the current second.
type bucket struct {
	answeredAll, answered, ok uint64 // answeredAll counts errors without a status too
	sentCounted               uint64 // sent by an earlier counters source since the last point
	codes                     map[string]uint64
	hist                      *hdrhistogram.Histogram
	lag                       *hdrhistogram.Histogram // schedule lag
	lagMax                    time.Duration
}

// newBucket starts a second, reusing h and lag (histograms for the
// view's life rather than new ones a second).
func newBucket(h, lag *hdrhistogram.Histogram) bucket {
	h.Reset()
	lag.Reset()
	return bucket{codes: map[string]uint64{}, hist: h, lag: lag}
}

func (b *bucket) add(r *results.Result) {
	if r.Dropped() {
		b.codes["dropped"]++
		return
	}
	b.answeredAll++
	b.codes[strconv.Itoa(int(r.Code))]++
	if r.Code != 0 {
		b.answered++
	}
	if r.Success() {
		b.ok++
	}
	metrics.RecordLatency(b.hist, r.DueLatency())
	lag := r.Lag()
	if lag > b.lagMax {
		b.lagMax = lag
	}
	if !r.Due.IsZero() {
		metrics.RecordLatency(b.lag, lag)
	}
}

// publish closes the current second into a point and wakes the streams.
func (s *Server) publish(ended bool) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.cur
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	p := Point{ID: s.nextID, T: now.Sub(s.started).Seconds(), Answered: b.answered, OK: b.ok, Codes: b.codes,
		LagMax: ms(int64(b.lagMax)), Ended: ended}
	if b.hist.TotalCount() > 0 {
		p.P50, p.P90, p.P99, p.Max = ms(b.hist.ValueAtQuantile(50)), ms(b.hist.ValueAtQuantile(90)), ms(b.hist.ValueAtQuantile(99)), ms(b.hist.Max())
	}
	if b.lag.TotalCount() > 0 {
		p.LagP50 = ms(b.lag.ValueAtQuantile(50))
	}
	var started time.Time
	if c, ok := s.job.Stats(); ok {
		p.Sent = b.sentCounted + sub(c.Sent, s.prevSent)
		p.InFlight, started = c.InFlight, c.Started
		p.Pacer = c.Pacer
		if c.Fallback != nil {
			p.Pacer += ": " + c.Fallback.String()
		}
		s.prevSent = c.Sent
	} else {
		p.Sent = b.answeredAll
	}
	if s.step != nil {
		st := *s.step
		if st.Ends.IsZero() && st.For > 0 && !started.IsZero() {
			st.Ends = started.Add(st.For)
		}
		if !st.Ends.IsZero() {
			st.Left = max(0, st.Ends.Sub(now).Seconds())
		}
		p.Step = &st
	}
	if len(s.metrics) > 0 {
		p.Metrics = make(map[string]float64, len(s.metrics))
		for k, v := range s.metrics {
			p.Metrics[k] = v
		}
	}
	if ended {
		r := s.run
		t := &Totals{Requests: r.answeredAll, Dropped: r.codes["dropped"]}
		if r.answeredAll > 0 {
			t.Success = float64(r.ok) / float64(r.answeredAll)
			t.P50, t.P99, t.Max = ms(r.hist.ValueAtQuantile(50)), ms(r.hist.ValueAtQuantile(99)), ms(r.hist.Max())
		}
		p.Run = t
	}
	s.cur = newBucket(b.hist, b.lag)
	s.nextID++
	s.points = append(s.points, p)
	if len(s.points) > MaxPoints {
		// Forget the oldest. When append next outgrows the array it copies
		// only the MaxPoints kept, so the old array is let go.
		s.points = s.points[len(s.points)-MaxPoints:]
	}
	s.ended = ended
	close(s.changed)
	s.changed = make(chan struct{})
}
