package plot

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Percentile is one point of a latency distribution.
type Percentile struct {
	Percent float64       // 0..100
	Value   time.Duration // latency at or below which Percent of requests fall
}

// Distribution is the percentile distribution of one run or step.
type Distribution struct {
	Name        string
	Percentiles []Percentile
}

// DistributionOf is the distribution of l (metrics' latency histogram).
func DistributionOf(name string, l *metrics.Latencies) Distribution {
	if l.Histogram() == nil {
		return Distribution{Name: name}
	}
	return DistributionFromHistogram(name, l.Histogram(), metrics.HistogramUnit)
}

// DistributionFromHistogram reads HdrHistogram's standard percentile output
// (5 ticks per half distance, as its plotter uses) from h, whose values are
// in units of unit (time.Nanosecond, time.Microsecond...). The 100% point
// is placed at (n-0.5)/n so the maximum stays on a finite log axis.
func DistributionFromHistogram(name string, h *hdrhistogram.Histogram, unit time.Duration) Distribution {
	d := Distribution{Name: name}
	n := h.TotalCount()
	if n == 0 {
		return d
	}
	for _, b := range h.CumulativeDistributionWithTicks(5) {
		q := b.Quantile
		if q >= 100 {
			q = 100 * (1 - 0.5/float64(n))
		}
		d.Percentiles = append(d.Percentiles, Percentile{Percent: q, Value: time.Duration(b.ValueAt) * unit})
	}
	return d
}
