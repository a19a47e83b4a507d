package experiment

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Brief is a short terminal summary of a run: what was tested, one line per
// step with each scenario's success and p99, and the main finding.
func Brief(sum *Summary, p99Of, successOf []string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	hdr := []string{"Configuration", "RPS"}
	for _, n := range successOf {
		hdr = append(hdr, n+" success")
	}
	for _, n := range p99Of {
		hdr = append(hdr, n+" p99")
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t"))
	for _, st := range sum.Steps {
		row := []string{st.Configuration, ""}
		if len(st.Scenarios) > 0 {
			row[1] = st.Scenarios[0].Rate
		}
		for _, n := range successOf {
			if sc := scenarioOf(st, n); sc != nil && sc.Requests > 0 {
				row = append(row, fmt.Sprintf("%.2f%%", 100*sc.Success))
			} else {
				row = append(row, "-")
			}
		}
		for _, n := range p99Of {
			if sc := scenarioOf(st, n); sc != nil && sc.Requests > 0 {
				row = append(row, fmtSeconds(sc.Latency.P99))
			} else {
				row = append(row, "-")
			}
		}
		if st.Aborted != "" {
			row[len(row)-1] += " (stopped)"
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	return b.String()
}
