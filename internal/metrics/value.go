package metrics

import "strconv"

// Value gives a figure by the name thresholds use (package threshold):
// latencies in seconds ("mean", "min", "max", "p99", "p99.9"), "success"
// and "errors" as ratios, "rps" (successful responses per second) and
// "requests". ok is false for an unknown name or a run with no requests.
// Call it on closed metrics.
func (m *Metrics) Value(metric string) (float64, bool) {
	if m == nil || m.Requests == 0 {
		return 0, false
	}
	switch metric {
	case "mean":
		return m.Latencies.Mean.Seconds(), true
	case "min":
		return m.Latencies.Min.Seconds(), true
	case "max":
		return m.Latencies.Max.Seconds(), true
	case "success":
		return m.Success, true
	case "errors":
		return 1 - m.Success, true
	case "rps":
		return m.Throughput, true
	case "requests":
		return float64(m.Requests), true
	}
	if len(metric) > 1 && metric[0] == 'p' {
		q, err := strconv.ParseFloat(metric[1:], 64)
		if err == nil {
			return m.Latencies.Quantile(q / 100).Seconds(), true
		}
	}
	return 0, false
}
