package findings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// compareConfigs finds the load at which the configurations differ most and
// says which held, or that they behaved alike and where their common
// ceiling is; then how the other scenarios fared and what the pool metrics
// show.
func compareConfigs(sum *summary.Summary, main string) []finding {
	byKey := map[string][]*summary.StepResult{}
	var keys []string
	for _, st := range sum.Steps {
		k := sum.RateKey(st)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], st)
	}
	var out []finding
	bestGap, bestKey := -1.0, ""
	for _, k := range keys {
		sts := byKey[k]
		if distinct(sts) < 2 {
			continue // one configuration at this load: nothing to compare it with
		}
		lo, hi := 2.0, -1.0
		for _, st := range sts {
			if sc := st.Scenario(main); sc != nil && sc.Requests > 0 {
				lo, hi = min(lo, sc.Success), max(hi, sc.Success)
			}
		}
		if hi-lo >= bestGap { // ties go to the later (usually heavier) load
			bestGap, bestKey = hi-lo, k
		}
	}
	if bestGap < 0 {
		return sweep(sum, main)
	}
	sts := append([]*summary.StepResult(nil), byKey[bestKey]...)
	sort.SliceStable(sts, func(i, j int) bool {
		a, b := sts[i].Scenario(main), sts[j].Scenario(main)
		if a == nil || b == nil {
			return a != nil
		}
		if a.Success != b.Success {
			return a.Success > b.Success
		}
		return a.Latency.P99 < b.Latency.P99
	})
	best, worst := sts[0], sts[len(sts)-1]
	bs, ws := best.Scenario(main), worst.Scenario(main)
	if bs == nil || ws == nil {
		return nil
	}
	at := ""
	if bestKey != "" {
		at = sum.AtLoad(best)
		at = strings.ToUpper(at[:1]) + at[1:] + ", "
	}
	if bestGap < 0.01 {
		if l := latencyDiffers(sum, main, keys, byKey); l != "" {
			out = append(out, fact(summary.KindComparison, l))
		} else {
			out = append(out, fact(summary.KindComparison, alike(sum, main, keys, byKey)))
		}
	} else {
		verb, keep := "held", "kept"
		if bs.Success < summary.Healthy {
			verb, keep = "did better", "had"
		}
		out = append(out, fact(summary.KindComparison, fmt.Sprintf("%s%s %s: %s %s %.2f%% success with p99 %s, while %s fell to %.2f%% with p99 %s.",
			at, label(sum, best), verb, main, keep, 100*bs.Success, summary.FmtSeconds(bs.Latency.P99.Seconds()), label(sum, worst), 100*ws.Success, summary.FmtSeconds(ws.Latency.P99.Seconds()))))
	}
	// The other scenarios at the heaviest load (e.g. the incident replay's /news poll).
	last := byKey[keys[len(keys)-1]]
	for _, sc := range last[0].Scenarios {
		if sc.Name == main {
			continue
		}
		worstOther, worstMain := sc, last[0].Scenario(main)
		for _, st := range last[1:] {
			if o := st.Scenario(sc.Name); o != nil && o.Requests > 0 && o.Success < worstOther.Success {
				worstOther, worstMain = o, st.Scenario(main)
			}
		}
		if worstOther.Requests > 0 && worstOther.Success < summary.Healthy && worstMain != nil {
			asked := "requested at only " + sc.Rate
			if sc.Closed() {
				asked = "sent by only " + sc.Load().String()
			}
			out = append(out, fact(summary.KindShared, fmt.Sprintf("%s, %s through the same proxy, fell to %.2f%% success %s (%s: %.2f%%): every route waits for the same pool, and for its manager.",
				sc.Name, asked, 100*worstOther.Success, sum.AtLoad(last[0]), main, 100*worstMain.Success)))
		}
	}
	if bestGap >= 0.01 {
		if why := poolWhy(best, worst, sum.Steps); why != "" {
			out = append(out, heuristic(summary.KindCause, worst, why))
		}
	}
	if churn := churn(sum, main, keys, byKey); churn != "" {
		out = append(out, fact(summary.KindCost, churn))
	}
	return out
}

// latencyDiffers describes configurations whose success is alike but whose
// latency is not (a regression hunt over builds): the p99 of each, in run
// order, at the load where they differ most, and the first that regressed.
func latencyDiffers(sum *summary.Summary, main string, keys []string, byKey map[string][]*summary.StepResult) string {
	bestRatio, bestKey, found := 1.5, "", false
	for _, k := range keys {
		lo, hi := 0.0, 0.0
		for _, st := range byKey[k] {
			if sc := st.Scenario(main); sc != nil && sc.Requests > 0 {
				if lo == 0 || sc.Latency.P99.Seconds() < lo {
					lo = sc.Latency.P99.Seconds()
				}
				hi = max(hi, sc.Latency.P99.Seconds())
			}
		}
		if lo > 0 && hi/lo >= bestRatio {
			bestRatio, bestKey, found = hi/lo, k, true
		}
	}
	sts := byKey[bestKey]
	if !found || len(sts) < 2 {
		return ""
	}
	best := 0.0
	for _, st := range sts {
		if sc := st.Scenario(main); sc != nil && sc.Requests > 0 && (best == 0 || sc.Latency.P99.Seconds() < best) {
			best = sc.Latency.P99.Seconds()
		}
	}
	var parts []string
	first := ""
	for _, st := range sts {
		sc := st.Scenario(main)
		if sc == nil || sc.Requests == 0 {
			continue
		}
		parts = append(parts, label(sum, st)+" "+summary.FmtSeconds(sc.Latency.P99.Seconds()))
		if first == "" && sc.Latency.P99.Seconds() >= 1.5*best {
			first = label(sum, st)
		}
	}
	at := ""
	if bestKey != "" {
		at = " " + sum.AtLoad(sts[0])
	}
	return fmt.Sprintf("Success was alike%s, latency was not: p99 of %s by configuration, in run order: %s. The first to regress (p99 at least 1.5× the best) is %s, %.1f× slower than the best at its worst.",
		at, main, strings.Join(parts, ", "), first, bestRatio)
}

// alike says that the configurations performed alike, with the load at
// which they all stopped coping, if any.
func alike(sum *summary.Summary, main string, keys []string, byKey map[string][]*summary.StepResult) string {
	lastGood, firstBad := "", ""
	n := 0
	for _, k := range keys {
		n = max(n, len(byKey[k]))
	}
	for _, k := range keys {
		if len(byKey[k]) < n {
			continue // not every configuration was measured at this load
		}
		worst := 2.0
		for _, st := range byKey[k] {
			if sc := st.Scenario(main); sc != nil && sc.Requests > 0 {
				worst = min(worst, sc.Success)
			}
		}
		if worst >= summary.Healthy && firstBad == "" {
			lastGood = k
		} else if firstBad == "" {
			firstBad = k
		}
	}
	s := "The configurations performed alike at every load (success within 1 point, similar p99)"
	if firstBad != "" {
		var sc *summary.ScenarioResult
		for _, st := range byKey[firstBad] {
			if o := st.Scenario(main); o != nil && (sc == nil || o.Success < sc.Success) {
				sc = o
			}
		}
		if lastGood != "" {
			s += fmt.Sprintf(": %s held %s for all of them and fell alike %s (%.2f%% success, p99 %s)", main, sum.AtLoad(byKey[lastGood][0]), sum.AtLoad(byKey[firstBad][0]), 100*sc.Success, summary.FmtSeconds(sc.Latency.P99.Seconds()))
		} else {
			s += fmt.Sprintf(": already %s %s fell to %.2f%% success (p99 %s) for all of them", sum.AtLoad(byKey[firstBad][0]), main, 100*sc.Success, summary.FmtSeconds(sc.Latency.P99.Seconds()))
		}
		s += ", so the ceiling is the number of workers, not whether they are persistent or overflow"
	}
	return s + "."
}

// churn compares how many upstream connections the configurations opened
// per second (overflow workers open one per request and close it after),
// and what that cost in CPU. It prefers a load that every configuration
// held, where the cost is paid for nothing (an overflow pool uses more CPU
// even while the system copes), and within those the
// largest difference.
func churn(sum *summary.Summary, main string, keys []string, byKey map[string][]*summary.StepResult) string {
	mean := func(st *summary.StepResult, metric string) (float64, bool) {
		for k, v := range st.Means {
			if strings.Contains(k, metric) {
				return v, true
			}
		}
		return 0, false
	}
	allHeld := func(sts []*summary.StepResult) bool {
		for _, st := range sts {
			if sc := st.Scenario(main); sc == nil || sc.Requests == 0 || sc.Success < summary.Healthy {
				return false
			}
		}
		return true
	}
	bestDiff, bestHeld, line := 2.0, false, ""
	for _, k := range keys {
		sts := byKey[k]
		var hi, lo *summary.StepResult
		var hv, lv float64
		for _, st := range sts {
			v, ok := mean(st, "upstream_connections_opened_total")
			if !ok {
				continue
			}
			if hi == nil || v > hv {
				hi, hv = st, v
			}
			if lo == nil || v < lv {
				lo, lv = st, v
			}
		}
		held := allHeld(sts)
		if hi == nil || hi == lo || hv-lv <= 2 || (bestHeld && !held) || (held == bestHeld && hv-lv <= bestDiff) {
			continue
		}
		bestDiff, bestHeld = hv-lv, held
		hc, _ := mean(hi, "proxy cpu %")
		lc, _ := mean(lo, "proxy cpu %")
		where := ""
		if held {
			where = ", where both held,"
			if len(sts) > 2 {
				where = ", where all held,"
			}
		}
		line = fmt.Sprintf("Cost: %s%s %s opened %.0f upstream connections/s against %.0f/s for %s (proxy CPU %.1f%% vs %.1f%% of a core",
			sum.AtLoad(sts[0]), where, label(sum, hi), hv, lv, label(sum, lo), hc, lc)
		if ho, ok := mean(hi, "origin cpu %"); ok {
			lo2, _ := mean(lo, "origin cpu %")
			line += fmt.Sprintf(", origin %.1f%% vs %.1f%%", ho, lo2)
		}
		line += ")."
	}
	return line
}

// distinct counts the configurations among steps.
func distinct(sts []*summary.StepResult) int {
	seen := map[string]bool{}
	for _, st := range sts {
		seen[st.Configuration] = true
	}
	return len(seen)
}

// label names a step's configuration where the sentence already names its
// load: the components' variants alone.
func label(sum *summary.Summary, st *summary.StepResult) string {
	return orText(sum.ConfigLabel(st), st.Configuration)
}
