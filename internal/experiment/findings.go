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
// scenarios fared, what the pool metrics were doing meanwhile, and seed
// 003's latency staircase wherever latency climbed in plateaus.
func findings(p *plan.Plan, sum *Summary) (out []string) {
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
	// Steps during which the generator itself stalled measure the machine,
	// not the system under test: they are named and left out.
	var kept []*StepResult
	var bad []string
	for _, st := range sum.Steps {
		if why := disturbed(st); why != "" {
			bad = append(bad, fmt.Sprintf("%q (%s)", st.Name, why))
			continue
		}
		kept = append(kept, st)
	}
	var note string
	if len(bad) > 0 {
		note = fmt.Sprintf("Left out of the comparisons, because the load generator could not keep its schedule (a busy machine; re-run them): %s.", strings.Join(bad, "; "))
		defer func() { out = append(out, note) }()
		clean := *sum
		clean.Steps = kept
		sum = &clean
		if len(kept) == 0 {
			return nil // the deferred note is all there is to say
		}
	}
	configs := map[string]bool{}
	for _, st := range sum.Steps {
		configs[st.Configuration] = true
	}
	if len(configs) > 1 && hasComponentAxis(p) {
		out = append(out, compareConfigs(p, sum, main)...)
	} else {
		out = append(out, sweep(sum, main)...)
	}
	if l := limits(p, sum, main); l != "" {
		if len(out) > 0 {
			out = append(out[:1], append([]string{l}, out[1:]...)...)
		} else {
			out = append(out, l)
		}
	}
	out = append(out, breakerStory(sum)...)
	return append(out, staircases(sum)...)
}

// disturbed says why a step's figures are not trustworthy: requests the
// generator could not send, or sent more than half a second late.
func disturbed(st *StepResult) string {
	for _, sc := range st.Scenarios {
		if sc.Dropped > 0 && float64(sc.Dropped) > 0.005*float64(sc.Requests) {
			return fmt.Sprintf("%d %s requests not sent", sc.Dropped, sc.Name)
		}
		if sc.MaxLag > 0.5 {
			return fmt.Sprintf("%s requests up to %s late", sc.Name, fmtSeconds(sc.MaxLag))
		}
	}
	return ""
}

// rateAxis is the matrix variable that sets the first scenario's rate, or "".
func rateAxis(p *plan.Plan, sum *Summary) string {
	for _, ax := range p.Axes {
		if ax.Component {
			continue
		}
		all := len(sum.Steps) > 0
		for _, st := range sum.Steps {
			v := st.Vars[ax.Key]
			if v == "" || len(st.Scenarios) == 0 || !strings.Contains(st.Scenarios[0].Rate, v) {
				all = false
				break
			}
		}
		if all {
			return ax.Key
		}
	}
	return ""
}

// group names a step without its rate: its configuration and the other
// matrix variables (e.g. "ruby (2 workers), info").
func group(p *plan.Plan, st *StepResult, rate string) string {
	var parts []string
	if hasComponentAxis(p) {
		parts = append(parts, st.Configuration)
	}
	for _, ax := range p.Axes {
		if v := st.Vars[ax.Key]; !ax.Component && ax.Key != rate && !strings.Contains(st.Configuration, v) {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ", ")
}

// limits gives, for each configuration (and other variable) swept over
// rates, the last rate with at least 99% success and the first below it:
// a table of limits per implementation. It says nothing when every group
// has the same.
func limits(p *plan.Plan, sum *Summary, main string) string {
	rate := rateAxis(p, sum)
	if rate == "" {
		return ""
	}
	type lim struct{ good, bad string }
	var order []string
	got := map[string]*lim{}
	for _, st := range sum.Steps {
		sc := scenarioOf(st, main)
		if sc == nil || sc.Requests == 0 {
			continue
		}
		g := group(p, st, rate)
		l := got[g]
		if l == nil {
			l = &lim{}
			got[g] = l
			order = append(order, g)
		}
		if l.bad != "" {
			continue
		}
		if sc.Success >= healthy && st.Aborted == "" {
			l.good = sc.Rate
		} else {
			l.bad = fmt.Sprintf("%s (%.2f%%)", sc.Rate, 100*sc.Success)
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
			parts = append(parts, fmt.Sprintf("%s held at every rate measured, up to %s", g, l.good))
		case l.good == "":
			parts = append(parts, fmt.Sprintf("%s fell already at %s, the lowest rate measured", g, l.bad))
		default:
			parts = append(parts, fmt.Sprintf("%s held up to %s and fell at %s", g, l.good, l.bad))
		}
	}
	if same {
		return ""
	}
	return "Limits (last rate with at least 99% success): " + strings.Join(parts, "; ") + "."
}

// breakerStory tells a breaker incident's sequence when the proxy's metrics
// show it:
// the pool drained, the breaker opened, fallbacks were served.
func breakerStory(sum *Summary) []string {
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
		return []string{s + "."}
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

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// hasComponentAxis reports whether the steps compare configurations: a
// component with several variants.
func hasComponentAxis(p *plan.Plan) bool {
	for _, c := range p.Components {
		if len(c.Variants) > 1 {
			return true
		}
	}
	return false
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
// says which held, or that they behaved alike and where their common
// ceiling is; then how the other scenarios fared and what the pool metrics
// show.
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
		if hi-lo >= bestGap { // ties go to the later (usually heavier) load
			bestGap, bestKey = hi-lo, k
		}
	}
	if bestGap < 0 {
		return sweep(sum, main)
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
		at = "At " + loadText(bestKey) + ", "
	}
	if bestGap < 0.01 {
		if l := latencyDiffers(main, keys, byKey); l != "" {
			out = append(out, l)
		} else {
			out = append(out, alike(main, keys, byKey))
		}
	} else {
		verb, keep := "held", "kept"
		if bs.Success < healthy {
			verb, keep = "did better", "had"
		}
		out = append(out, fmt.Sprintf("%s%s %s: %s %s %.2f%% success with p99 %s, while %s fell to %.2f%% with p99 %s.",
			at, best.Configuration, verb, main, keep, 100*bs.Success, fmtSeconds(bs.Latency.P99), worst.Configuration, 100*ws.Success, fmtSeconds(ws.Latency.P99)))
	}
	// The other scenarios at the heaviest load (e.g. the /news poll beside a
	// /search flood).
	last := byKey[keys[len(keys)-1]]
	for _, sc := range last[0].Scenarios {
		if sc.Name == main {
			continue
		}
		worstOther, worstMain := sc, scenarioOf(last[0], main)
		for _, st := range last[1:] {
			if o := scenarioOf(st, sc.Name); o != nil && o.Requests > 0 && o.Success < worstOther.Success {
				worstOther, worstMain = o, scenarioOf(st, main)
			}
		}
		if worstOther.Requests > 0 && worstOther.Success < healthy && worstMain != nil {
			out = append(out, fmt.Sprintf("%s, requested at only %s through the same proxy, fell to %.2f%% success at %s (%s: %.2f%%): every route waits for the same pool, and for its manager.",
				sc.Name, sc.Rate, 100*worstOther.Success, loadText(keys[len(keys)-1]), main, 100*worstMain.Success))
		}
	}
	if bestGap >= 0.01 {
		if why := poolWhy(best, worst, sum.Steps); why != "" {
			out = append(out, why)
		}
	}
	if churn := churn(main, keys, byKey); churn != "" {
		out = append(out, churn)
	}
	return out
}

// latencyDiffers describes configurations whose success is alike but whose
// latency is not (a hunt for the build that regressed): the p99 of each, in run
// order, at the load where they differ most, and the first that regressed.
func latencyDiffers(main string, keys []string, byKey map[string][]*StepResult) string {
	bestRatio, bestKey, found := 1.5, "", false
	for _, k := range keys {
		lo, hi := 0.0, 0.0
		for _, st := range byKey[k] {
			if sc := scenarioOf(st, main); sc != nil && sc.Requests > 0 {
				if lo == 0 || sc.Latency.P99 < lo {
					lo = sc.Latency.P99
				}
				hi = max(hi, sc.Latency.P99)
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
		if sc := scenarioOf(st, main); sc != nil && sc.Requests > 0 && (best == 0 || sc.Latency.P99 < best) {
			best = sc.Latency.P99
		}
	}
	var parts []string
	first := ""
	for _, st := range sts {
		sc := scenarioOf(st, main)
		if sc == nil || sc.Requests == 0 {
			continue
		}
		parts = append(parts, st.Configuration+" "+fmtSeconds(sc.Latency.P99))
		if first == "" && sc.Latency.P99 >= 1.5*best {
			first = st.Configuration
		}
	}
	at := ""
	if bestKey != "" {
		at = " at " + loadText(bestKey)
	}
	return fmt.Sprintf("Success was alike%s, latency was not: p99 of %s by configuration, in run order: %s. The first to regress (p99 at least 1.5× the best) is %s, %.1f× slower than the best at its worst.",
		at, main, strings.Join(parts, ", "), first, bestRatio)
}

// loadText writes a rate key for a sentence: "64 req/s" or "rate=64".
func loadText(k string) string {
	if isNumber(k) {
		return k + " req/s"
	}
	return k
}

// alike says that the configurations performed alike, with the load at
// which they all stopped coping, if any.
func alike(main string, keys []string, byKey map[string][]*StepResult) string {
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
			if sc := scenarioOf(st, main); sc != nil && sc.Requests > 0 {
				worst = min(worst, sc.Success)
			}
		}
		if worst >= healthy && firstBad == "" {
			lastGood = k
		} else if firstBad == "" {
			firstBad = k
		}
	}
	s := "The configurations performed alike at every load (success within 1 point, similar p99)"
	if firstBad != "" {
		var sc *ScenarioResult
		for _, st := range byKey[firstBad] {
			if o := scenarioOf(st, main); o != nil && (sc == nil || o.Success < sc.Success) {
				sc = o
			}
		}
		if lastGood != "" {
			s += fmt.Sprintf(": %s held at %s for all of them and fell alike at %s (%.2f%% success, p99 %s)", main, loadText(lastGood), loadText(firstBad), 100*sc.Success, fmtSeconds(sc.Latency.P99))
		} else {
			s += fmt.Sprintf(": already at %s %s fell to %.2f%% success (p99 %s) for all of them", loadText(firstBad), main, 100*sc.Success, fmtSeconds(sc.Latency.P99))
		}
		s += ", so the ceiling is the number of workers, not whether they are persistent or overflow"
	}
	return s + "."
}

// churn compares how many upstream connections the configurations opened
// per second (overflow workers open one per request and close it after),
// and what that cost in CPU. It prefers a load that every configuration
// held, where the overflow's churn costs CPU although the system is working
// normally, and within those the largest difference.
func churn(main string, keys []string, byKey map[string][]*StepResult) string {
	mean := func(st *StepResult, metric string) (float64, bool) {
		for k, v := range st.Means {
			if strings.Contains(k, metric) {
				return v, true
			}
		}
		return 0, false
	}
	allHeld := func(sts []*StepResult) bool {
		for _, st := range sts {
			if sc := scenarioOf(st, main); sc == nil || sc.Requests == 0 || sc.Success < healthy {
				return false
			}
		}
		return true
	}
	bestDiff, bestHeld, line := 2.0, false, ""
	for _, k := range keys {
		sts := byKey[k]
		var hi, lo *StepResult
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
		line = fmt.Sprintf("Cost: at %s%s %s opened %.0f upstream connections/s against %.0f/s for %s (proxy CPU %.1f%% vs %.1f%% of a core",
			loadText(k), where, hi.Configuration, hv, lv, lo.Configuration, hc, lc)
		if ho, ok := mean(hi, "origin cpu %"); ok {
			lo2, _ := mean(lo, "origin cpu %")
			line += fmt.Sprintf(", origin %.1f%% vs %.1f%%", ho, lo2)
		}
		line += ")."
	}
	return line
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
func poolWhy(best, worst *StepResult, all []*StepResult) string {
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
	if why := managerWhy(best, worst, all, pick, rate); why != "" {
		return why
	}
	wUse, ok1 := pick(worst, "pool_workers_in_use")
	wWait, _ := pick(worst, "pool_waiting")
	wOver, _ := pick(worst, "pool_overflow_workers_in_use")
	bUse, ok2 := pick(best, "pool_workers_in_use")
	bWait, _ := pick(best, "pool_waiting")
	if !ok1 || !ok2 {
		return ""
	}
	s := fmt.Sprintf("Why: with %s the pool peaked at %.0f workers in use", worst.Configuration, wUse)
	if wOver > 0 {
		s += fmt.Sprintf(" (%.0f of them overflow workers, opened per request and closed after)", wOver)
	}
	s += fmt.Sprintf(" and %.0f requests queued for a worker", wWait)
	if to, ok := rate(worst, "checkout_timeouts_total"); ok && to > 0 {
		s += fmt.Sprintf(", %.1f checkout timeouts/s turning into errors", to)
	}
	s += fmt.Sprintf("; with %s it peaked at %.0f in use and %.0f queued.", best.Configuration, bUse, bWait)
	return s
}

// managerWhy explains a collapse by the proxy's serial pool manager (seed
// 000's "Mailbox" graph): one goroutine, as poolboy is one Erlang process,
// that starts and dismisses overflow workers itself. When the worst
// configuration's mailbox grew and the best's did not, it says how many
// workers the manager could start per second against the requests that
// arrived, how far the mailbox grew, and what that did to checkouts.
func managerWhy(best, worst *StepResult, all []*StepResult, pick, rate func(*StepResult, string) (float64, bool)) string {
	wBox, ok := pick(worst, "pool_mailbox")
	if !ok || wBox < 10 {
		return ""
	}
	bBox, _ := pick(best, "pool_mailbox")
	if bBox*4 > wBox {
		return ""
	}
	starts, _ := rate(worst, "overflow_opened_total")
	offered := 0.0
	for _, sc := range worst.Scenarios {
		offered += sc.RateActual
	}
	s := fmt.Sprintf("Why: the pool manager is a single goroutine, as poolboy is a single Erlang process, and with %s it had to start an overflow worker (a new upstream connection) for almost every checkout and dismiss one at almost every checkin. "+
		"It could start only about %.0f workers/s while %.0f requests/s arrived, so its mailbox grew to %.0f messages and requests waited in it past the checkout timeout", worst.Configuration, starts, offered, wBox)
	if to, ok := rate(worst, "checkout_timeouts_total"); ok && to > 0 {
		s += fmt.Sprintf(" (%.0f checkout timeouts/s, each a 500)", to)
	}
	s += "."
	// The same configuration at a load it held: the manager kept up.
	for _, st := range all {
		sc := scenarioOf(st, scenarioName(worst))
		if st == worst || st.Configuration != worst.Configuration || sc == nil || sc.Requests == 0 || sc.Success < healthy {
			continue
		}
		if r, ok := rate(st, "overflow_opened_total"); ok && r > 0 {
			box, _ := pick(st, "pool_mailbox")
			in := 0.0
			for _, o := range st.Scenarios {
				in += o.RateActual
			}
			s += fmt.Sprintf(" At %.0f requests/s it had kept up (%.0f starts/s, mailbox peak %.0f).", in, r, box)
			break
		}
	}
	return s + fmt.Sprintf(" %s never starts or dismisses a worker, and its mailbox peaked at %.0f.", best.Configuration, bBox)
}

// scenarioName is a step's first scenario, the one the findings follow.
func scenarioName(st *StepResult) string {
	if len(st.Scenarios) == 0 {
		return ""
	}
	return st.Scenarios[0].Name
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
