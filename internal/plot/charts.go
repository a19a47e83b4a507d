package plot

import (
	"math"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Collector feeds every result to a LatencyPoints and a Timeline, the two
// summaries the time charts of one run are drawn from.
type Collector struct {
	Latency  *LatencyPoints
	Timeline *Timeline
}

// NewCollector returns a collector keeping the given number of latency
// columns (DefaultColumns when 0) and one-second timeline bins.
func NewCollector(columns int) *Collector {
	return &Collector{Latency: NewLatencyPoints(columns), Timeline: NewTimeline(time.Second)}
}

// The collectors of the time charts are results sinks.
var (
	_ results.Sink = (*Collector)(nil)
	_ results.Sink = (*LatencyPoints)(nil)
	_ results.Sink = (*Timeline)(nil)
)

// Add records one result.
func (c *Collector) Add(r *results.Result) {
	c.Latency.Add(r)
	c.Timeline.Add(r)
}

// TimeAxis is the x axis shared by every time chart of a run, so that the
// latency, throughput and server metric charts line up: seconds since
// Origin, from 0 to Span.
type TimeAxis struct {
	Origin time.Time
	Span   float64 // seconds; 0 lets each chart fit its own data
}

func (ta TimeAxis) axis() Axis {
	a := Axis{Label: "time (s)", Scale: Linear}
	if ta.Span > 0 {
		a.Min, a.Max = 0, ta.Span
	}
	return a
}

// Axis returns the time axis covering the collector's results: from the
// first send to the last response's send time plus one second.
func (c *Collector) Axis() TimeAxis {
	lp := c.Latency
	if lp.Count() == 0 {
		return TimeAxis{}
	}
	return TimeAxis{Origin: lp.Start(), Span: lp.End().Sub(lp.Start()).Seconds() + 1}
}

// LatencyChart is the latency-over-time scatter, coloured by status class.
func LatencyChart(title string, ta TimeAxis, lp *LatencyPoints) Chart {
	label := "latency (ms)"
	if lp.UseDue {
		label = "latency from due time (ms)"
	}
	return Chart{Title: title, X: ta.axis(), Y: Axis{Label: label}, Series: lp.Series(ta.Origin)}
}

// ThroughputChart shows the request rate and the throughput per second.
func ThroughputChart(title string, ta TimeAxis, t *Timeline) Chart {
	return Chart{Title: title, X: ta.axis(), Y: Axis{Label: "per second"}, Series: t.Rates(ta.Origin)}
}

// StatusChart shows responses per second for each status code.
func StatusChart(title string, ta TimeAxis, t *Timeline) Chart {
	return Chart{Title: title, X: ta.axis(), Y: Axis{Label: "responses per second"}, Series: t.Codes(ta.Origin)}
}

// LogSpread is the ratio of the slowest p99 to the fastest p50 from which
// PercentileChart draws latency on a log scale, so that a 2 ms run and a
// 30 s run (a healthy and a regressed build) can both be read.
const LogSpread = 50

// PercentileChart overlays latency distributions on HdrHistogram's
// percentile axis, latency in milliseconds: on a linear scale, or a log
// scale when the runs are more than LogSpread apart.
func PercentileChart(title string, dists ...Distribution) Chart {
	c := Chart{Title: title, X: Axis{Label: "percentile", Scale: PercentileLog}, Y: Axis{Label: "latency (ms)"}}
	if spread(dists) > LogSpread {
		c.Y = Axis{Label: "latency (ms, log scale)", Scale: Log}
	}
	for _, d := range dists {
		s := Series{Name: d.Name, Kind: Line, Points: make([]Point, len(d.Percentiles))}
		for i, p := range d.Percentiles {
			s.Points[i] = Point{X: p.Percent, Y: float64(p.Value) / 1e6}
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// Sample is one reading of a sampled metric.
type Sample struct {
	Time  time.Time
	Value float64
}

// Metric is a sampled server or generator metric (pool workers, CPU%,
// RSS...), drawn over time.
type Metric struct {
	Name    string
	Unit    string // y axis label, e.g. "workers", "CPU %", "MiB"
	Samples []Sample
}

// MaxDots is the number of samples up to which MetricChart marks every
// sample with a dot, so that a short step's one or two samples show and
// readings can be counted.
const MaxDots = 120

// MetricChart draws metrics on the same time axis as the latency chart.
// Metrics sharing a chart should share a unit; the first one's labels the
// y axis.
func MetricChart(title string, ta TimeAxis, metrics ...Metric) Chart {
	c := Chart{Title: title, X: ta.axis()}
	if len(metrics) > 0 {
		c.Y.Label = metrics[0].Unit
	}
	o := ta.Origin.UnixNano()
	for _, m := range metrics {
		s := Series{Name: m.Name, Kind: Line, Points: make([]Point, len(m.Samples)), Dots: len(m.Samples) <= MaxDots}
		for i, smp := range m.Samples {
			s.Points[i] = Point{X: float64(smp.Time.UnixNano()-o) / 1e9, Y: smp.Value}
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// spread is the slowest p99 over the fastest p50 of dists (0 when unknown).
func spread(dists []Distribution) float64 {
	fast, slow := math.Inf(1), 0.0
	for _, d := range dists {
		p50, p99 := at(d, 50), at(d, 99)
		if p50 > 0 {
			fast = math.Min(fast, p50)
		}
		slow = math.Max(slow, p99)
	}
	if math.IsInf(fast, 1) {
		return 0
	}
	return slow / fast
}

// at is the latency at or just above percent p in d.
func at(d Distribution, p float64) float64 {
	for _, q := range d.Percentiles {
		if q.Percent >= p {
			return float64(q.Value)
		}
	}
	if n := len(d.Percentiles); n > 0 {
		return float64(d.Percentiles[n-1].Value)
	}
	return 0
}
