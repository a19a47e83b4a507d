package writeup

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Brief is a compact table of a run for the terminal: one row per load and
// one column per configuration, each cell the main scenario's success and
// p99 (or one row per step when the plan has no configurations to compare).
func Brief(sum *summary.Summary) string {
	if len(sum.Steps) == 0 || len(sum.Steps[0].Scenarios) == 0 {
		return "no step ran\n"
	}
	main := sum.Steps[0].Scenarios[0].Name
	var configs, keys []string
	cell := map[[2]string]string{}
	keyText := map[string]string{}
	for _, st := range sum.Steps {
		k, kt := sum.RateKey(st), sum.KeyText(st)
		if k == "" {
			k, kt = st.Name, summary.LoadText(st.Name)
		}
		if _, ok := keyText[k]; !ok {
			keyText[k] = kt
		}
		if !slices.Contains(configs, st.Configuration) {
			configs = append(configs, st.Configuration)
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		c := "-"
		if sc := st.Scenario(main); sc != nil && sc.Requests > 0 {
			c = fmt.Sprintf("%.2f%% ok, p99 %s", 100*sc.Success, summary.FmtSeconds(sc.Latency.P99.Seconds()))
		}
		if st.Aborted != "" {
			c += " (stopped)"
		} else if st.Disturbed() != "" {
			c += " (disturbed)"
		}
		cell[[2]string{k, st.Configuration}] = c
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 3, ' ', 0)
	if len(configs) > 1 && len(keys) < len(sum.Steps) {
		fmt.Fprintln(tw, main+"\t"+strings.Join(configs, "\t"))
		for _, k := range keys {
			row := []string{"  " + keyText[k]}
			for _, c := range configs {
				row = append(row, orText(cell[[2]string{k, c}], "-"))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	} else {
		fmt.Fprintln(tw, main+"\t")
		for _, st := range sum.Steps {
			k := sum.RateKey(st)
			if k == "" {
				k = st.Name
			}
			fmt.Fprintln(tw, "  "+st.Name+"\t"+cell[[2]string{k, st.Configuration}])
		}
	}
	tw.Flush()
	return b.String()
}
