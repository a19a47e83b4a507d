package metrics

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// FromHistogram rebuilds a run's Metrics from what an archive keeps of it
// instead of its results: the latency histogram (made by NewHistogram),
// the number of requests and successes, and the exact mean and maximum
// latency. Percentiles, the mean and the success ratio then read as the
// run's report printed them; rates, bytes, codes and errors stay empty.
// h is kept, not copied. The result is closed.
func FromHistogram(h *hdrhistogram.Histogram, requests, successes uint64, mean, maxLatency time.Duration) *Metrics {
	m := NewWith(Options{NoBreakdown: true})
	m.Requests, m.Successes = requests, successes
	if n := h.TotalCount(); n > 0 {
		l := &m.Latencies
		l.hist = h
		l.Count = uint64(n)
		l.Total = mean * time.Duration(n)
		l.Min = time.Duration(h.Min()) * HistogramUnit
		l.Max = maxLatency
		if l.Max <= 0 {
			l.Max = time.Duration(h.Max()) * HistogramUnit
		}
	}
	m.Close()
	return m
}
