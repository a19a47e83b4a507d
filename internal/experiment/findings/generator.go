package findings

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/report"
)

// generatorLag is the finding that the load generator's own delay was a
// visible share of what a scenario measured (report.LagNote: its lag p50
// above a tenth of the latency p50), and the one naming the scenarios
// whose precise pacer fell back to batching; none when neither happened.
func generatorLag(sum *summary.Summary) (out []finding) {
	var where, fell []string
	note := ""
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			h := sc.Health
			if h == nil {
				continue
			}
			name := fmt.Sprintf("step %q, scenario %s", st.Name, sc.Name)
			if h.PacerFallback != "" {
				fell = append(fell, name+" ("+h.PacerFallback+")")
			}
			if h.LagP50 < 0 {
				continue
			}
			if n := report.LagNote(h.LagP50, sc.Latency.P50); n != "" {
				where = append(where, name)
				if note == "" {
					note = n
				}
			}
		}
	}
	if len(where) > 0 {
		text := "In " + where[0] + ", " + note + "."
		if len(where) > 1 {
			text = fmt.Sprintf("In %d scenario runs (%s) the load generator's own schedule lag was more than %d%% of the latency p50; in the first, %s.",
				len(where), strings.Join(where, "; "), int(report.LagNoteShare*100), note)
		}
		out = append(out, fact(summary.KindGenerator, text))
	}
	if len(fell) > 0 {
		out = append(out, fact(summary.KindGenerator, "The precise pacer fell back to batching, so requests left up to a millisecond late, in "+strings.Join(fell, "; ")+"."))
	}
	return out
}
