// Package hist records the proxy's durations (checkout waits, upstream
// latencies) twice: in fixed buckets for Prometheus, dense around round
// values so that a 1 s origin and a 1.004 s one land in different buckets,
// and in loadlab's latency histogram (metrics.NewHistogram) for the
// percentiles /status reports.
package hist

import (
	"sort"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Buckets are the upper bounds, in seconds, of the Prometheus buckets: for
// each of 1, 2, 3, 5 times each power of ten from 100µs to 10s, the value and
// the value plus 0.1%, 0.2%, 0.5%, 1%, 2%, 5%, 10% and 20%, then 120s.
var Buckets = func() []float64 {
	var b []float64
	seen := map[float64]bool{}
	for _, dec := range []float64{1e-4, 1e-3, 1e-2, 1e-1, 1, 10} {
		for _, m := range []float64{1, 2, 3, 5} {
			for _, f := range []float64{1, 1.001, 1.002, 1.005, 1.01, 1.02, 1.05, 1.1, 1.2} {
				v := float64(int64(dec*m*f*1e7+0.5)) / 1e7 // round away float noise
				if !seen[v] {
					seen[v] = true
					b = append(b, v)
				}
			}
		}
	}
	b = append(b, 120)
	sort.Float64s(b)
	return b
}()

// Histogram is a concurrent duration histogram.
type Histogram struct {
	mu     sync.Mutex
	counts []uint64 // per bucket, non-cumulative; last is +Inf
	count  uint64
	sum    float64
	hdr    *hdrhistogram.Histogram
}

// New returns an empty histogram.
func New() *Histogram {
	return &Histogram{
		counts: make([]uint64, len(Buckets)+1),
		hdr:    metrics.NewHistogram(),
	}
}

// Observe records d.
func (h *Histogram) Observe(d time.Duration) {
	s := d.Seconds()
	i := sort.SearchFloat64s(Buckets, s) // first bound >= s
	h.mu.Lock()
	h.counts[i]++
	h.count++
	h.sum += s
	metrics.RecordLatency(h.hdr, d)
	h.mu.Unlock()
}

// Summary is what /status shows of a histogram.
type Summary struct {
	Count uint64  `json:"count"`
	Sum   float64 `json:"sum_seconds"`
	Mean  float64 `json:"mean_seconds"`
	P50   float64 `json:"p50_seconds"`
	P90   float64 `json:"p90_seconds"`
	P99   float64 `json:"p99_seconds"`
	Max   float64 `json:"max_seconds"`
}

// Summary returns count, sum and percentiles.
func (h *Histogram) Summary() Summary {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Summary{Count: h.count, Sum: h.sum}
	if h.count == 0 {
		return s
	}
	seconds := func(v int64) float64 { return (time.Duration(v) * metrics.HistogramUnit).Seconds() }
	q := func(p float64) float64 { return seconds(h.hdr.ValueAtQuantile(p)) }
	s.Mean = h.sum / float64(h.count)
	s.P50, s.P90, s.P99 = q(50), q(90), q(99)
	s.Max = seconds(h.hdr.Max())
	return s
}

// Cumulative returns the count, sum and cumulative bucket counts keyed by
// upper bound, as prometheus.MustNewConstHistogram wants them.
func (h *Histogram) Cumulative() (uint64, float64, map[float64]uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := make(map[float64]uint64, len(Buckets))
	var c uint64
	for i, b := range Buckets {
		c += h.counts[i]
		m[b] = c
	}
	return h.count, h.sum, m
}
