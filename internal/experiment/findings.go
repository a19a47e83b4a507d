package experiment

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

// healthy is the success ratio under which a step counts as failing.
const healthy = 0.99

// rateKey is the step's non-component variables, e.g. "rate=60": steps
// sharing it differ only in configuration.
func rateKey(p *plan.Plan, st *StepResult) string {
	var parts []string
	for _, ax := range p.Axes {
		if !ax.Component {
			parts = append(parts, st.Vars[ax.Key])
		}
	}
	return strings.Join(parts, ", ")
}

// findings states what the data shows, in sentences a newcomer can read:
// component failures, which configuration held and which collapsed at the
// same load, where success fell below 99% in a sweep, how the other
// scenarios fared and what the pool metrics were doing meanwhile.
func findings(p *plan.Plan, sum *Summary) []string {
	var out []string
	for _, st := range sum.Steps {
		for _, d := range st.Deaths {
			last := ""
			if n := len(d.LastOutput); n > 0 {
				last = ": last output \"" + d.LastOutput[n-1] + "\""
			}
			out = append(out, fmt.Sprintf("Component %s failed in step %q (%s)%s; results up to that point are kept.", d.Name, st.Name, orText(d.Exit, d.StartError), last))
		}
	}
	if len(sum.Steps) == 0 || len(sum.Steps[0].Scenarios) == 0 {
		return out
	}
	main := sum.Steps[0].Scenarios[0].Name
	configs := map[string]bool{}
	for _, st := range sum.Steps {
		configs[st.Configuration] = true
	}
	if len(configs) > 1 && hasComponentAxis(p) {
		out = append(out, compareConfigs(p, sum, main)...)
	} else {
		out = append(out, sweep(sum, main)...)
	}
	return out
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func hasComponentAxis(p *plan.Plan) bool {
	for _, ax := range p.Axes {
		if ax.Component {
			return true
		}
	}
	// A step list choosing variants counts too.
	return len(p.Axes) == 0
}

func scenarioOf(st *StepResult, name string) *ScenarioResult {
	for _, sc := range st.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

// compareConfigs finds the load at which the configurations differ most and
// says which held.
func compareConfigs(p *plan.Plan, sum *Summary, main string) []string {
	byKey := map[string][]*StepResult{}
	var keys []string
	for _, st := range sum.Steps {
		k := rateKey(p, st)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], st)
	}
	var out []string
	bestGap, bestKey := -1.0, ""
	for _, k := range keys {
		sts := byKey[k]
		if len(sts) < 2 {
			continue
		}
		lo, hi := 2.0, -1.0
		for _, st := range sts {
			if sc := scenarioOf(st, main); sc != nil && sc.Requests > 0 {
				lo, hi = min(lo, sc.Success), max(hi, sc.Success)
			}
		}
		if hi-lo > bestGap {
			bestGap, bestKey = hi-lo, k
		}
	}
	if bestKey == "" {
		return nil
	}
	sts := append([]*StepResult(nil), byKey[bestKey]...)
	sort.SliceStable(sts, func(i, j int) bool {
		a, b := scenarioOf(sts[i], main), scenarioOf(sts[j], main)
		if a == nil || b == nil {
			return a != nil
		}
		if a.Success != b.Success {
			return a.Success > b.Success
		}
		return a.Latency.P99 < b.Latency.P99
	})
	best, worst := sts[0], sts[len(sts)-1]
	bs, ws := scenarioOf(best, main), scenarioOf(worst, main)
	if bs == nil || ws == nil {
		return nil
	}
	at := ""
	if bestKey != "" {
		at = "At " + bestKey + (map[bool]string{true: " req/s", false: ""}[isNumber(bestKey)]) + ", "
	}
	if bestGap < 0.01 && ws.Latency.P99 < 1.5*bs.Latency.P99 {
		out = append(out, fmt.Sprintf("%sall configurations performed alike on %s (success %.2f%%–%.2f%%, p99 %s–%s): the difference between them is within noise at these loads.",
			at, main, 100*ws.Success, 100*bs.Success, fmtSeconds(bs.Latency.P99), fmtSeconds(ws.Latency.P99)))
		return out
	}
	out = append(out, fmt.Sprintf("%s%s held: %s kept %.2f%% success with p99 %s, while %s fell to %.2f%% with p99 %s.",
		at, best.Configuration, main, 100*bs.Success, fmtSeconds(bs.Latency.P99), worst.Configuration, 100*ws.Success, fmtSeconds(ws.Latency.P99)))
	// Other scenarios in the same steps (seed 000's /news poll).
	for _, sc := range best.Scenarios {
		if sc.Name == main {
			continue
		}
		if o := scenarioOf(worst, sc.Name); o != nil && sc.Requests > 0 && o.Requests > 0 {
			out = append(out, fmt.Sprintf("Meanwhile %s, sharing the proxy, had %.2f%% success (p99 %s) with %s and %.2f%% (p99 %s) with %s: the flood on %s degraded it too.",
				sc.Name, 100*sc.Success, fmtSeconds(sc.Latency.P99), best.Configuration, 100*o.Success, fmtSeconds(o.Latency.P99), worst.Configuration, main))
		}
	}
	if why := poolWhy(best, worst); why != "" {
		out = append(out, why)
	}
	return out
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// poolWhy explains a difference with the sampled pool metrics, when the
// proxy's were sampled.
func poolWhy(best, worst *StepResult) string {
	pick := func(st *StepResult, metric string) (float64, bool) {
		v, ok := 0.0, false
		for k, x := range st.Peaks {
			if strings.Contains(k, metric) && !strings.HasSuffix(k, "/s") {
				v, ok = max(v, x), true
			}
		}
		return v, ok
	}
	rate := func(st *StepResult, metric string) (float64, bool) {
		v, ok := 0.0, false
		for k, x := range st.Means {
			if strings.Contains(k, metric) && strings.HasSuffix(k, "/s") {
				v, ok = v+x, true
			}
		}
		return v, ok
	}
	wUse, ok1 := pick(worst, "pool_workers_in_use")
	wWait, _ := pick(worst, "pool_waiting")
	wOver, _ := pick(worst, "pool_overflow_workers_in_use")
	bUse, ok2 := pick(best, "pool_workers_in_use")
	bWait, _ := pick(best, "pool_waiting")
	if !ok1 || !ok2 {
		return ""
	}
	s := fmt.Sprintf("Why: with %s the pool peaked at %.0f workers in use (%.0f of them overflow workers, opened per request and closed after) and %.0f requests queued for a worker",
		worst.Configuration, wUse, wOver, wWait)
	if to, ok := rate(worst, "checkout_timeouts_total"); ok && to > 0 {
		s += fmt.Sprintf(", %.1f checkout timeouts/s turning into errors", to)
	}
	s += fmt.Sprintf("; with %s it peaked at %.0f in use and %.0f queued.", best.Configuration, bUse, bWait)
	return s
}

// sweep describes a one-configuration sweep: where success fell below 99%.
func sweep(sum *Summary, main string) []string {
	var out []string
	var lastGood *StepResult
	for _, st := range sum.Steps {
		sc := scenarioOf(st, main)
		if sc == nil || sc.Requests == 0 {
			continue
		}
		if sc.Success >= healthy && st.Aborted == "" {
			lastGood = st
			continue
		}
		prefix := "From the first step"
		if lastGood != nil {
			g := scenarioOf(lastGood, main)
			prefix = fmt.Sprintf("%s held up to step %q (%.2f%% success, p99 %s); at", main, lastGood.Name, 100*g.Success, fmtSeconds(g.Latency.P99))
		} else {
			prefix += ", at"
		}
		out = append(out, fmt.Sprintf("%s step %q success fell to %.2f%% and p99 rose to %s: this is the knee.", prefix, st.Name, 100*sc.Success, fmtSeconds(sc.Latency.P99)))
		return out
	}
	if lastGood != nil {
		g := scenarioOf(lastGood, main)
		out = append(out, fmt.Sprintf("%s kept at least 99%% success in every step, up to %q (p99 %s): the knee lies beyond the loads tried.", main, lastGood.Name, fmtSeconds(g.Latency.P99)))
	}
	return out
}
