package findings

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// breakerStory tells the pool-drain story when the proxy's metrics show
// it: the pool drained, the breaker opened, fallbacks were served.
func breakerStory(sum *summary.Summary) []finding {
	for _, st := range sum.Steps {
		open, ok := seriesValue(st.Peaks, "breaker_state", "state=open")
		if !ok || open < 1 {
			continue
		}
		share, _ := seriesValue(st.Means, "breaker_state", "state=open")
		waiting, _ := seriesValue(st.Peaks, "pool_waiting", "")
		timeouts, _ := seriesValue(st.Peaks, "origin=pool_timeout", "/s")
		fb, _ := seriesValue(st.Peaks, "origin=fallback", "/s")
		fbMean, _ := seriesValue(st.Means, "origin=fallback", "/s")
		rejected, _ := seriesValue(st.Peaks, "origin=breaker", "/s")
		s := fmt.Sprintf("In step %q the pool drained (up to %.0f requests waiting for a worker, %.0f checkout timeouts/s), then the circuit breaker opened (open in %.0f%% of the samples)",
			st.Name, waiting, timeouts, 100*share)
		if fb > 0 {
			s += fmt.Sprintf(" and stale copies were served as fallbacks (up to %.0f/s, %.1f/s on average)", fb, fbMean)
		}
		if rejected > 0 {
			s += fmt.Sprintf("; requests with no copy to fall back on were refused at once (up to %.0f/s)", rejected)
		}
		return []finding{heuristic(summary.KindBreaker, st, s+".")}
	}
	return nil
}

// seriesValue sums the values of the series whose name contains both parts.
func seriesValue(m map[string]float64, part, part2 string) (float64, bool) {
	v, ok := 0.0, false
	for k, x := range m {
		if strings.Contains(k, part) && strings.Contains(k, part2) {
			v, ok = v+x, true
		}
	}
	return v, ok
}
