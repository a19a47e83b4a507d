package findings

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/prediction"
)

// Model is the Predictor that explains a step from the prediction
// summary.json holds for it (made by the model before the step ran):
// what queued where, for how long, and why; and whether the measurement
// agreed with it, naming the likely cause when it did not.
type Model struct{}

// Explain implements Predictor.
func (Model) Explain(sum *summary.Summary, st *summary.StepResult) ([]Finding, bool) {
	m := st.Model
	if m == nil || m.Error != "" || len(m.Scenarios) == 0 {
		return nil, false
	}
	for _, sc := range st.Scenarios {
		if m.PredictedScenario(sc.Name) == nil {
			return nil, false // a scenario the model left out: keep the heuristics
		}
	}
	var out []Finding
	if why := modelWhy(st, m); why != "" {
		out = append(out, Finding{Kind: summary.KindModel, Text: why})
	}
	for _, f := range m.Fragile {
		out = append(out, Finding{Kind: summary.KindModel, Text: fmt.Sprintf("In step %q, the prediction is fragile: %s.", st.Name, f)})
	}
	if st.Aborted == "" {
		for _, sc := range st.Scenarios {
			if miss := predictionMiss(st, sc, m); miss != "" {
				out = append(out, Finding{Kind: summary.KindPrediction, Text: miss})
			}
		}
	}
	return out, true
}

// modelAgreement is the run-wide verdict on the model's predictions.
func modelAgreement(sum *summary.Summary) []finding {
	cs := summary.Checks(sum)
	if len(cs) == 0 {
		return nil
	}
	ok := 0
	for _, c := range cs {
		if c.OK {
			ok++
		}
	}
	text := fmt.Sprintf("The model's predictions, made before each step ran, held for %d of %d step scenarios (success within %.0f points, p50 and p99 within %.0f%%)",
		ok, len(cs), summary.SuccessTolerance*100, summary.LatencyTolerance*100)
	if ok == len(cs) {
		text += ": what the findings explain is what the configuration implies, nothing else."
	} else {
		text += "; each miss is named below with its likely cause."
	}
	return []finding{fact(summary.KindPrediction, text)}
}

// predictionMiss words a scenario whose measurement left the prediction's
// tolerance, with the likely cause; "" when it agreed.
func predictionMiss(st *summary.StepResult, sc *summary.ScenarioResult, m *summary.StepModel) string {
	p := m.PredictedScenario(sc.Name)
	if p == nil || sc.RunError != "" || sc.Requests == 0 {
		return ""
	}
	var gaps []string
	if math.Abs(sc.Success-p.Success) > summary.SuccessTolerance {
		gaps = append(gaps, fmt.Sprintf("success %.2f%% where the model predicted %.2f%%", 100*sc.Success, 100*p.Success))
	}
	if !summary.LatencyAgrees(p.Latencies.P50, sc.Latency.P50) {
		gaps = append(gaps, fmt.Sprintf("p50 %s (predicted %s)", summary.FmtSeconds(sc.Latency.P50.Seconds()), summary.FmtSeconds(p.Latencies.P50.Seconds())))
	}
	if !summary.LatencyAgrees(p.Latencies.P99, sc.Latency.P99) {
		gaps = append(gaps, fmt.Sprintf("p99 %s (predicted %s)", summary.FmtSeconds(sc.Latency.P99.Seconds()), summary.FmtSeconds(p.Latencies.P99.Seconds())))
	}
	if len(gaps) == 0 {
		return ""
	}
	return fmt.Sprintf("In step %q, %s measured %s: %s.", st.Name, sc.Name, strings.Join(gaps, ", "), likelyCause(st, sc, m))
}

// likelyCause names what most likely made a measurement leave the
// prediction, from what the samplers and the generator recorded.
func likelyCause(st *summary.StepResult, sc *summary.ScenarioResult, m *summary.StepModel) string {
	if behind := sc.DroppedBehind(); sc.MaxLag > 0.05 || behind > 0 {
		return fmt.Sprintf("the generator fell behind its schedule (lag up to %s, %d requests dropped), so the load was not the one modelled", summary.FmtSeconds(sc.MaxLag), behind)
	}
	if sc.DroppedAtMaxWorkers > 0 {
		return fmt.Sprintf("%d requests were due while max_workers requests were in flight and were dropped (counted as failures); the model does not bound the requests in flight", sc.DroppedAtMaxWorkers)
	}
	var hot []string
	keys := make([]string, 0, len(st.Peaks))
	for k := range st.Peaks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if comp, ok := strings.CutSuffix(k, " cpu %"); ok && st.Peaks[k] >= 90 {
			if comp == "host" {
				continue
			}
			hot = append(hot, fmt.Sprintf("the %s used %.0f%% of a core", comp, st.Peaks[k]))
		}
	}
	if v, ok := st.Peaks["host cpu busy %"]; ok && v >= 90 {
		hot = append(hot, fmt.Sprintf("the machine's CPUs were %.0f%% busy", v))
	}
	if len(hot) > 0 {
		return strings.Join(hot, " and ") + ": the model does not model CPU, so a saturated process is the likely cause"
	}
	for _, pp := range m.Pools {
		if pp.Manager == "serial" && pp.ManagerUtilization >= 0.95 && math.Abs(sc.Success-m.PredictedScenario(sc.Name).Success) > summary.SuccessTolerance {
			return fmt.Sprintf("the model had pool %s's serial manager busy %.0f%% of the step, at the edge of its capacity: there, whether its mailbox holds or grows is decided by costs too small for the model to see (the manager's own work per message on a loaded machine), so the prediction is fragile; a configuration a few percent further from the edge predicts reliably",
				pp.Pool, 100*pp.ManagerUtilization)
		}
	}
	if len(m.Fragile) > 0 {
		return "the prediction was fragile (its requests met a configured bound within a hair, see above): there the real system decides by timer wake-ups the model can only draw"
	}
	if pl := st.Pool; pl != nil && pl.CheckoutTimeout > 0 {
		ceiling := pl.CheckoutTimeout + pl.RequestTimeout
		if sc.Latency.Max.Seconds() > ceiling+0.5 {
			return fmt.Sprintf("latency reached %s where the pool's configuration allows at most %s (checkout timeout %s + request timeout %s): something outside the pool's configuration adds %s",
				summary.FmtSeconds(sc.Latency.Max.Seconds()), summary.FmtSeconds(ceiling), summary.FmtSeconds(pl.CheckoutTimeout), summary.FmtSeconds(pl.RequestTimeout), summary.FmtSeconds(sc.Latency.Max.Seconds()-ceiling))
		}
	}
	if len(m.Notes) > 0 {
		return "the model left out " + strings.Join(m.Notes, "; ")
	}
	return "no sampler shows a saturated generator, process or machine, so the system behaves in a way the model lacks: look at the components' logs and metrics"
}

// modelWhy explains from the prediction what queued where and why, for a
// step where something did (requests waited, timed out, were rejected or
// failed); "" for a step where every request was served at once.
func modelWhy(st *summary.StepResult, m *summary.StepModel) string {
	var parts []string
	for _, pp := range m.Pools {
		if s := modelPoolWhy(m, pp); s != "" {
			parts = append(parts, s)
		}
	}
	for _, b := range m.Breakers {
		if opened := b.FirstOpen(); b.Rejected > 0 || opened > 0 {
			parts = append(parts, fmt.Sprintf("the breaker on route %s opened at %s and turned away %d requests (%s)", b.Route, summary.FmtSeconds(opened.Seconds()), b.Rejected, b.Story()))
		}
	}
	var upErr, fallback uint64
	for _, ps := range m.Scenarios {
		upErr += ps.Answered["upstream_error"]
		fallback += ps.Answered["fallback"]
	}
	if upErr > 0 {
		parts = append(parts, fmt.Sprintf("%d requests ended in the request timeout or an upstream error", upErr))
	}
	if fallback > 0 {
		parts = append(parts, fmt.Sprintf("%d were answered from the stale cache (fallbacks)", fallback))
	}
	if len(parts) == 0 {
		return ""
	}
	var figs []string
	for _, ps := range m.Scenarios {
		figs = append(figs, fmt.Sprintf("%s %.2f%% success, p99 %s", ps.Name, 100*ps.Success, summary.FmtSeconds(ps.Latencies.P99.Seconds())))
	}
	return fmt.Sprintf("In step %q, the model (predicted %s) explains it: %s.", st.Name, strings.Join(figs, "; "), strings.Join(parts, "; "))
}

// modelPoolWhy explains one pool's part.
func modelPoolWhy(m *summary.StepModel, pp prediction.Pool) string {
	var cf *prediction.ClosedForm
	for i := range m.Closed {
		if m.Closed[i].Pool == pp.Pool {
			cf = &m.Closed[i]
		}
	}
	w := pp.Size + pp.Overflow
	var maxWait time.Duration
	for _, ps := range m.Scenarios {
		maxWait = max(maxWait, ps.MaxCheckoutWait)
	}
	timedOut := ""
	if pp.Timeouts > 0 {
		timedOut = fmt.Sprintf("; from %s on, %d checkouts reached the %s checkout timeout and failed", summary.FmtSeconds(pp.FirstTimeout.Seconds()), pp.Timeouts, summary.FmtSeconds(pp.CheckoutTimeout.Seconds()))
	}
	// The serial manager fell behind: the mailbox, not the workers, is the
	// queue.
	if pp.Manager == "serial" && pp.MailboxPeak >= 20 && pp.PeakInUse < w {
		turn := 0.0
		if c := pp.StartCost + pp.StopCost; c > 0 {
			turn = 1 / c.Seconds()
		}
		need := ""
		if cf != nil && cf.Rate > 0 {
			// poolboy dismisses a worker at almost every checkin while any
			// overflow worker lives, so above size nearly every request
			// costs one start and one dismissal.
			need = fmt.Sprintf(" while the %.0f requests a second each needed one start and one dismissal once the %d persistent workers were busy", cf.Rate, pp.Size)
		}
		return fmt.Sprintf("pool %s's serial manager starts each overflow worker in %s and dismisses it in %s, one message at a time, so it turns over at most %.0f workers a second%s; its mailbox grew to %d messages and checkouts waited behind them with at most %d of %d workers in use%s",
			pp.Pool, summary.FmtSeconds(pp.StartCost.Seconds()), summary.FmtSeconds(pp.StopCost.Seconds()), turn, need, pp.MailboxPeak, pp.PeakInUse, w, timedOut)
	}
	if pp.PeakWaiting == 0 && pp.Timeouts == 0 {
		return ""
	}
	if cf != nil && cf.Rate > cf.Capacity {
		return fmt.Sprintf("%.0f req/s is more than pool %s's %d workers carry with a %s origin (W/L = %.1f req/s), so requests queued for a worker, each batch of %d waiting %s longer than the one before (steps of W/R = %s), up to %s%s; latency stops at the ceiling %s = checkout timeout + origin time",
			cf.Rate, pp.Pool, w, summary.FmtSeconds(cf.Latency.Seconds()), cf.Capacity, w, summary.FmtSeconds(cf.Rise.Seconds()), summary.FmtSeconds(cf.Step.Seconds()),
			summary.FmtSeconds(maxWait.Seconds()), timedOut, summary.FmtSeconds(cf.Ceiling.Seconds()))
	}
	return fmt.Sprintf("pool %s's %d workers were all in use and up to %d requests waited for one (the longest %s)%s",
		pp.Pool, w, pp.PeakWaiting, summary.FmtSeconds(maxWait.Seconds()), timedOut)
}
