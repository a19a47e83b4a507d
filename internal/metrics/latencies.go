package metrics

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Every latency histogram in loadlab (reports, plots, compare, the progress
// line, the proxy's /status) is made by NewHistogram: values in
// HistogramUnit, discernible from HistogramLowest, up to HistogramHighest,
// with HistogramSigFigs significant digits. Values outside the range are
// clamped into it by RecordLatency.
const (
	HistogramUnit    = time.Nanosecond
	HistogramLowest  = time.Microsecond
	HistogramHighest = time.Hour
	HistogramSigFigs = 3
)

// NewHistogram returns an empty latency histogram (see HistogramUnit).
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(int64(HistogramLowest/HistogramUnit), int64(HistogramHighest/HistogramUnit), HistogramSigFigs)
}

// RecordLatency records d in h (made by NewHistogram), clamped into its
// range.
func RecordLatency(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(min(max(int64(d/HistogramUnit), 0), int64(HistogramHighest/HistogramUnit)))
}

// LatencySummary is a latency distribution's headline figures, the one
// shape loadlab keeps them in wherever they are stored apart from their
// samples (a run's summary.json, a prediction, an archived run):
// nanoseconds, under vegeta's JSON report keys. (vegeta's whole latencies
// object, with total, is the report's JSON.)
type LatencySummary struct {
	Mean time.Duration `json:"mean"`
	P50  time.Duration `json:"50th"`
	P90  time.Duration `json:"90th"`
	P95  time.Duration `json:"95th"`
	P99  time.Duration `json:"99th"`
	Max  time.Duration `json:"max"`
	// Min is the exact minimum where the samples were measured (0, and
	// left out, where they were not: a prediction, an archived run).
	Min time.Duration `json:"min,omitempty"`
}

// Latencies summarises latency samples: exact count, total, min, max and
// mean, and percentiles from an HdrHistogram (3 significant digits).
type Latencies struct {
	Count uint64        // samples recorded
	Total time.Duration // sum of all samples
	// LatencySummary holds the exact minimum and maximum, the mean (Total
	// / Count, truncated as vegeta does) and the percentiles; the mean and
	// the percentiles are set by Close.
	LatencySummary

	hist *hdrhistogram.Histogram
}

// HistogramBytes is the memory one latency histogram takes.
func HistogramBytes() int { return NewHistogram().ByteSize() }

func (l *Latencies) add(d time.Duration) {
	if l.hist == nil {
		l.hist = NewHistogram()
	}
	if l.Count == 0 || d < l.Min {
		l.Min = d
	}
	if d > l.Max {
		l.Max = d
	}
	l.Count++
	l.Total += d
	RecordLatency(l.hist, d)
}

func (l *Latencies) merge(o *Latencies) {
	if o.Count == 0 {
		return
	}
	if l.hist == nil {
		l.hist = NewHistogram()
	}
	if l.Count == 0 || o.Min < l.Min {
		l.Min = o.Min
	}
	l.Max = max(l.Max, o.Max)
	l.Count += o.Count
	l.Total += o.Total
	l.hist.Merge(o.hist)
}

func (l *Latencies) close() {
	if l.Count == 0 {
		return
	}
	l.Mean = time.Duration(float64(l.Total) / float64(l.Count))
	l.P50 = l.Quantile(0.50)
	l.P90 = l.Quantile(0.90)
	l.P95 = l.Quantile(0.95)
	l.P99 = l.Quantile(0.99)
}

// Quantile returns the latency at quantile q (0..1): 0 gives the exact
// minimum, 1 the exact maximum, and values in between come from the
// histogram, clamped to [Min, Max]. It is monotone in q.
func (l *Latencies) Quantile(q float64) time.Duration {
	if l.Count == 0 {
		return 0
	}
	if q <= 0 {
		return l.Min
	}
	if q >= 1 {
		return l.Max
	}
	v := time.Duration(l.hist.ValueAtQuantile(q*100)) * HistogramUnit
	return min(max(v, l.Min), l.Max)
}

// Histogram returns the underlying HdrHistogram (values in HistogramUnit),
// or nil when nothing was recorded. Callers must not modify it.
func (l *Latencies) Histogram() *hdrhistogram.Histogram { return l.hist }
