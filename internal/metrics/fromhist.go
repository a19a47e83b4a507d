package metrics

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// FromHistogram returns closed Metrics rebuilt from a stored latency
// histogram (made by NewHistogram, as the run archive keeps each step's)
// and the run's request and success counts: what compare and the trend
// verdicts need from a run whose results are not re-read. Its latencies
// are h's: count, percentiles, and min, max and mean to the histogram's
// precision (3 significant digits); the other figures are zero. h is
// copied, not retained.
func FromHistogram(h *hdrhistogram.Histogram, requests, successes uint64) *Metrics {
	m := NewWith(Options{NoBreakdown: true})
	m.Requests, m.Successes = requests, successes
	if h != nil && h.TotalCount() > 0 {
		l := &m.Latencies
		l.hist = NewHistogram()
		l.hist.Merge(h)
		l.Count = uint64(h.TotalCount())
		l.Min = time.Duration(h.Min()) * HistogramUnit
		l.Max = time.Duration(h.Max()) * HistogramUnit
		l.Total = time.Duration(h.Mean()*float64(h.TotalCount())) * HistogramUnit
	}
	m.Close()
	return m
}
