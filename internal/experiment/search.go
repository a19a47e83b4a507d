package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/load"
)

// maxProbes bounds one configuration's search (bracketing, bisection and
// confirmation); with the default 2% precision over 100..5000/s a search
// needs about 12.
const maxProbes = 24

// searcher runs a plan's capacity search: per configuration, probes at
// chosen rates (each a step of the run folder), starting from the model's
// knee when the model covers the configuration.
type searcher struct {
	r        *runner
	sum      *summary.Summary
	runs     []*stepRun
	next     int // index of the next probe step
	slo      []threshold.Threshold
	confirms map[*stepRun]bool
}

// search runs the capacity search and returns the probes' step runs; fatal
// is set when the plan must stop.
func (r *runner) search(ctx context.Context, sum *summary.Summary) (runs []*stepRun, confirms map[*stepRun]bool, fatal error) {
	s := &searcher{r: r, sum: sum, slo: r.plan.Thresholds, confirms: map[*stepRun]bool{}}
	if len(s.slo) == 0 {
		t, err := threshold.Parse(DefaultSLO)
		if err != nil {
			return nil, nil, err
		}
		s.slo = []threshold.Threshold{t}
	}
	seen := map[string]bool{}
	for _, st := range r.plan.Steps {
		key := fmt.Sprint(st.Variants)
		if seen[key] {
			continue
		}
		seen[key] = true
		res, err := s.configuration(ctx, st)
		sum.Search = append(sum.Search, res)
		if err != nil {
			return s.runs, s.confirms, err
		}
	}
	return s.runs, s.confirms, nil
}

// configuration searches one configuration, with st as the template.
func (s *searcher) configuration(ctx context.Context, st *plan.Step) (summary.SearchResult, error) {
	sp := s.r.plan.Search
	res := summary.SearchResult{Configuration: s.r.plan.Configuration(st), Scenario: sp.Scenario, Precision: sp.Precision, Min: sp.Min, Max: sp.Max}
	start := math.Sqrt(sp.Min * sp.Max)
	if calibrated(st) {
		// The fitted knee needs the live target: start the components
		// and calibrate before the first probe.
		if _, err := s.r.fleet.prepare(ctx, st); err == nil {
			s.r.calibrate(ctx, st)
		}
	}
	if k, ok := s.predictedKnee(st); ok {
		res.Predicted = k
		start = min(max(k, sp.Min), sp.Max)
	}
	from := "the middle of the range"
	if res.Predicted > 0 {
		from = "the model's knee"
	}
	s.r.progress("search %s: from %s req/s (%s)", res.Configuration, load.FmtRate(start), from)
	probe := func(rate float64, confirm bool) (bool, error) {
		if len(res.Probes) >= maxProbes {
			return false, fmt.Errorf("search %s: %d probes without converging", res.Configuration, maxProbes)
		}
		p, err := s.probe(ctx, st, rate, confirm)
		res.Probes = append(res.Probes, p)
		return p.Pass, err
	}
	lo, hi := 0.0, 0.0
	pass, err := probe(start, false)
	if err != nil {
		return res, err
	}
	if pass {
		lo = start
		for hi = min(start*2, sp.Max); ; hi = min(hi*2, sp.Max) {
			if pass, err = probe(hi, false); err != nil {
				return res, err
			}
			if !pass {
				break
			}
			lo = hi
			if hi >= sp.Max {
				res.Rate, res.AtMax, res.Confirmed = lo, true, true
				return res, nil
			}
		}
	} else {
		hi = start
		for lo = max(start/2, sp.Min); ; lo = max(lo/2, sp.Min) {
			if pass, err = probe(lo, false); err != nil {
				return res, err
			}
			if pass {
				break
			}
			hi = lo
			if lo <= sp.Min {
				res.Broken = res.Probes[len(res.Probes)-1].Broken
				return res, nil // nothing in the range holds
			}
		}
	}
	for (hi-lo)/lo > sp.Precision {
		mid := (lo + hi) / 2
		if pass, err = probe(mid, false); err != nil {
			return res, err
		}
		if pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	for _, p := range res.Probes {
		if p.Rate == hi && !p.Pass {
			res.Broken = p.Broken
		}
	}
	// Confirm the answer with a fresh run: a rate that held once by luck
	// is lowered by the precision until it holds again.
	for i := 0; i < 3; i++ {
		if pass, err = probe(lo, true); err != nil {
			return res, err
		}
		if pass {
			res.Rate, res.Confirmed = lo, true
			return res, nil
		}
		lo *= 1 - sp.Precision
	}
	res.Rate = lo
	return res, nil
}

// probe runs the template step at rate, again when the generator could
// not keep its schedule (such a run is not counted), and judges it.
func (s *searcher) probe(ctx context.Context, tmpl *plan.Step, rate float64, confirm bool) (summary.SearchProbe, error) {
	st, err := s.probeStep(tmpl, rate, confirm)
	if err != nil {
		return summary.SearchProbe{Rate: rate}, err
	}
	res, fatal := s.r.runStep(ctx, st)
	var reruns []string
	for len(reruns) < max(s.r.plan.Retries, 2) && fatal == nil {
		why := res.Disturbed()
		if why == "" {
			break
		}
		reruns = append(reruns, why)
		s.r.progress("  the generator could not keep its schedule (%s): running the probe again", why)
		res, fatal = s.r.runStep(ctx, st)
	}
	res.Reruns = reruns
	s.runs = append(s.runs, res)
	s.sum.Steps = append(s.sum.Steps, res.StepResult)
	s.r.progressStep(res)
	if confirm {
		s.confirms[res] = true
	}
	p := summary.SearchProbe{Rate: rate, Step: st.Name, Confirmation: confirm}
	if sc := res.Scenario(s.r.plan.Search.Scenario); sc != nil {
		p.Success, p.P99 = sc.Success, sc.Latency.P99.Seconds()
	}
	p.Pass, p.Broken = s.judge(res)
	if res.Disturbed() != "" {
		p.Pass, p.Broken = false, "the generator could not keep its schedule: "+res.Disturbed()
	}
	verdict := "holds"
	if !p.Pass {
		verdict = "fails: " + p.Broken
	}
	s.r.progress("  %s req/s %s", load.FmtRate(rate), verdict)
	if fatal != nil && !errors.Is(fatal, errInterrupted) {
		fatal = fmt.Errorf("probe %q: %w", st.Name, fatal)
	}
	return p, fatal
}

// probeStep is the template step with the searched scenario at rate.
func (s *searcher) probeStep(tmpl *plan.Step, rate float64, confirm bool) (*plan.Step, error) {
	st := *tmpl
	st.Index = s.next
	s.next++
	name := s.r.plan.Search.Scenario
	what := "probe"
	if confirm {
		what = "confirmation"
	}
	st.Name = fmt.Sprintf("%s at %s req/s (%s)", s.r.plan.Configuration(tmpl), load.FmtRate(rate), what)
	st.Vars = map[string]string{}
	for k, v := range tmpl.Vars {
		st.Vars[k] = v
	}
	st.Vars["rate"] = strconv.FormatFloat(rate, 'f', -1, 64)
	st.Scenarios = nil
	for _, sc := range tmpl.Scenarios {
		if sc.Name == name {
			cp := *sc
			spec, err := schedule.ParseSpec(strconv.FormatFloat(rate, 'f', 3, 64) + "/s")
			if err != nil {
				return nil, err
			}
			spec.Text = load.FmtRate(rate) + "/s"
			cp.Rate = spec
			sc = &cp
		}
		st.Scenarios = append(st.Scenarios, sc)
	}
	return &st, nil
}

// judge checks a probe against the search's thresholds.
func (s *searcher) judge(res *stepRun) (bool, string) {
	for _, th := range s.slo {
		for _, sc := range res.scenarios {
			if !sc.judges(th) {
				continue
			}
			v, pass, ok := th.Check(sc.values(th))
			if !ok || !pass {
				measured := "no data"
				if ok {
					measured = th.Format(v)
				}
				return false, fmt.Sprintf("%s (measured %s)", th.Source, measured)
			}
		}
	}
	return true, ""
}

// predictedKnee is the model's knee for the configuration of st, when the
// model covers it.
func (s *searcher) predictedKnee(st *plan.Step) (float64, bool) {
	// A fitted queue's notes say where it is uncertain; the knee is still
	// the best start a search has.
	if res := s.r.predict(st); res == nil || res.Error != "" || len(res.Notes) > 0 && !calibrated(st) {
		return 0, false
	}
	return s.r.opts.Model.Knee(s.r.plan, st, s.r.plan.Search.Scenario, s.slo, s.r.plan.Search.Precision, s.r.plan.Search.Max)
}
