package findings

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// group names a step without its rate: its configuration and the other
// matrix variables (e.g. "ruby (2 workers), info").
func group(sum *summary.Summary, st *summary.StepResult) string {
	var parts []string
	if sum.Compares() {
		parts = append(parts, orText(sum.ConfigLabel(st), st.Configuration))
	}
	if v := sum.VarsLabel(st); v != "" {
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ", ")
}

// limits gives, for each configuration (and other variable) swept over
// rates (or a closed loop's users), the last load with at least 99%
// success and the first below it:
// the step sweep's table of limits. It says nothing when every group has the same.
func limits(sum *summary.Summary, main string) string {
	if sum.RateAxis() == "" {
		return ""
	}
	type lim struct{ good, bad string }
	var order []string
	got := map[string]*lim{}
	what := "rate" // what the sweep varies: a closed loop's is its users
	for _, st := range sum.Steps {
		sc := st.Scenario(main)
		if sc == nil || sc.Requests == 0 {
			continue
		}
		if sc.Closed() {
			what = "number of users"
		}
		g := group(sum, st)
		l := got[g]
		if l == nil {
			l = &lim{}
			got[g] = l
			order = append(order, g)
		}
		if l.bad != "" {
			continue
		}
		if sc.Success >= summary.Healthy && st.Aborted == "" {
			l.good = sc.Load().String()
		} else {
			l.bad = fmt.Sprintf("%s (%.2f%%)", sc.Load(), 100*sc.Success)
		}
	}
	if len(order) < 2 {
		return ""
	}
	var parts []string
	same := true
	for _, g := range order {
		l := got[g]
		same = same && *l == *got[order[0]]
		switch {
		case l.bad == "":
			parts = append(parts, fmt.Sprintf("%s held at every %s measured, up to %s", g, what, l.good))
		case l.good == "":
			parts = append(parts, fmt.Sprintf("%s fell already at %s, the lowest %s measured", g, l.bad, what))
		default:
			parts = append(parts, fmt.Sprintf("%s held up to %s and fell at %s", g, l.good, l.bad))
		}
	}
	if same {
		return ""
	}
	return "Limits (last " + what + " with at least 99% success): " + strings.Join(parts, "; ") + "."
}
