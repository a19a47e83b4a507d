package trend

import (
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
)

// Metric is a figure followed across runs.
type Metric string

// The metrics trend follows.
const (
	P50        Metric = "p50"
	P90        Metric = "p90"
	P95        Metric = "p95"
	P99        Metric = "p99"
	Mean       Metric = "mean"
	Max        Metric = "max"
	Success    Metric = "success"
	Throughput Metric = "throughput"
)

// Metrics lists every Metric, as -metric accepts them.
var Metrics = []Metric{P50, P90, P95, P99, Mean, Max, Success, Throughput}

// ParseMetric parses a -metric value; an unknown one is a *badinput.Error.
func ParseMetric(s string) (Metric, error) {
	for _, m := range Metrics {
		if string(m) == strings.ToLower(strings.TrimSpace(s)) {
			return m, nil
		}
	}
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = string(m)
	}
	return "", badinput.Field("-metric", "unknown metric %q (one of %s)", s, strings.Join(names, ", "))
}

// Unit is how the metric's values are expressed: "ms", "%" or "/s".
func (m Metric) Unit() string {
	switch m {
	case Success:
		return "%"
	case Throughput:
		return "/s"
	}
	return "ms"
}

// HigherIsWorse reports whether a rise of the metric is a regression
// (latencies) rather than an improvement (success, throughput).
func (m Metric) HigherIsWorse() bool { return m != Success && m != Throughput }

// value is the metric of a run's figures, in its Unit.
func (m Metric) value(f *archive.Figures) float64 {
	l := f.Latencies
	switch m {
	case P50:
		return millis(l.P50)
	case P90:
		return millis(l.P90)
	case P95:
		return millis(l.P95)
	case P99:
		return millis(l.P99)
	case Mean:
		return millis(l.Mean)
	case Max:
		return millis(l.Max)
	case Success:
		return 100 * f.Success
	}
	return f.Throughput
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
