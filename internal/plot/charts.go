package plot

import (
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

// PercentileChart overlays latency distributions on HdrHistogram's
// percentile axis, latency in milliseconds.
func PercentileChart(title string, dists ...Distribution) Chart {
	c := Chart{Title: title, X: Axis{Label: "percentile", Scale: PercentileLog}, Y: Axis{Label: "latency (ms)"}}
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
