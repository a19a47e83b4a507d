package model

import (
	"strconv"
	"strings"
	"time"
)

// Value gives the predicted figures by threshold metric name (see package
// threshold): latencies in seconds (mean, min, max, any pNN), success and
// errors as ratios, requests and rps as numbers.
func (p *ScenarioPrediction) Value(metric string) (float64, bool) {
	switch metric {
	case "success":
		return p.Success, true
	case "errors":
		return 1 - p.Success, true
	case "requests":
		return float64(p.Requests), true
	case "rps":
		if p.Duration <= 0 {
			return 0, false
		}
		return float64(p.Requests) / p.Duration.Seconds(), true
	case "mean":
		return p.Latencies.Mean.Seconds(), true
	case "min":
		return p.min.Seconds(), true
	case "max":
		return p.Latencies.Max.Seconds(), true
	}
	if q, ok := strings.CutPrefix(metric, "p"); ok && p.hist != nil {
		if f, err := strconv.ParseFloat(q, 64); err == nil && f > 0 && f <= 100 {
			return time.Duration(p.hist.ValueAtQuantile(f)).Seconds(), true
		}
	}
	return 0, false
}
