package findings

import (
	"fmt"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// sweep describes a one-configuration sweep: where success fell below 99%
// or, for a closed loop that kept its success, where its throughput
// stopped rising with the users.
func sweep(sum *summary.Summary, main string) []finding {
	var out []finding
	var lastGood *summary.StepResult
	for _, st := range sum.Steps {
		sc := st.Scenario(main)
		if sc == nil || sc.Requests == 0 {
			continue
		}
		if sc.Success >= summary.Healthy && st.Aborted == "" {
			lastGood = st
			continue
		}
		if sc.Closed() {
			return append(out, usersFell(main, lastGood, st))
		}
		prefix := "From the first step"
		if lastGood != nil {
			g := lastGood.Scenario(main)
			prefix = fmt.Sprintf("%s held up to step %q (%.2f%% success, p99 %s); at", main, lastGood.Name, 100*g.Success, summary.FmtSeconds(g.Latency.P99.Seconds()))
		} else {
			prefix += ", at"
		}
		out = append(out, fact(summary.KindSweep, fmt.Sprintf("%s step %q success fell to %.2f%% and p99 rose to %s: this is the knee.", prefix, st.Name, 100*sc.Success, summary.FmtSeconds(sc.Latency.P99.Seconds()))))
		return out
	}
	if f, ok := usersSweep(sum, main); ok && lastGood != nil {
		return append(out, f)
	}
	if lastGood != nil {
		g := lastGood.Scenario(main)
		out = append(out, fact(summary.KindSweep, fmt.Sprintf("%s kept at least 99%% success in every step, up to %q (p99 %s): the knee lies beyond the loads tried.", main, lastGood.Name, summary.FmtSeconds(g.Latency.P99.Seconds()))))
	}
	return out
}
