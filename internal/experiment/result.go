package experiment

import (
	"fmt"
	"github.com/loadlab/loadlab/internal/report"

	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// stepRun is a step's result with what the runner keeps of it in memory
// until the run ends: the samples and each scenario's metrics.
type stepRun struct {
	*summary.StepResult
	samples   []sampler.Sample
	scenarios []*scenarioRun
}

// scenarioRun is a scenario's result with its metrics.
type scenarioRun struct {
	*summary.ScenarioResult
	m   *metrics.Metrics
	lag *runblock.LagMeter // the lag part of its health
	// flow is a flow scenario's figures counted from its results stream
	// (countFlow), nil for single requests.
	flow *report.FlowTally
	sc   *plan.Scenario // what it ran
}

// add appends a scenario to the step.
func (s *stepRun) add(sr *scenarioRun) {
	s.scenarios = append(s.scenarios, sr)
	s.Scenarios = append(s.Scenarios, sr.ScenarioResult)
}

// latencySummary is what summary.json keeps of l (closed).
func latencySummary(l *metrics.Latencies) metrics.LatencySummary { return l.LatencySummary }

// Design records the plan's shape in the summary: the matrix, whether the
// steps compare configurations, and each scenario with the rates of every
// step, as the findings and the report's method section need them.
func Design(p *plan.Plan) *summary.Design {
	d := &summary.Design{Steps: len(p.Steps)}
	for _, ax := range p.Axes {
		d.Axes = append(d.Axes, summary.Axis{Key: ax.Key, Values: ax.Values, Component: ax.Component})
	}
	for _, c := range p.Components {
		d.Compares = d.Compares || len(c.Variants) > 1
	}
	if p.Warmup > 0 {
		d.Warmup = p.Warmup.String()
	}
	if p.Cooldown > 0 {
		d.Cooldown = p.Cooldown.String()
	}
	if len(p.Steps) == 0 {
		return d
	}
	for _, sc := range p.Steps[0].Scenarios {
		sd := summary.ScenarioDesign{Name: sc.Name, Target: firstTarget(sc.Targets + sc.TargetsFile + sc.Flow), Duration: sc.Duration.String()}
		seen := map[string]bool{}
		for _, st := range p.Steps {
			for _, o := range st.Scenarios {
				if o.Name == sc.Name && !seen[o.Rate.Text] {
					seen[o.Rate.Text] = true
					sd.Rates = append(sd.Rates, o.Rate.Text)
				}
			}
		}
		for _, h := range sc.Headers {
			sd.Headers = append(sd.Headers, fmt.Sprintf("%s: %s", h[0], h[1]))
		}
		d.Scenarios = append(d.Scenarios, sd)
	}
	return d
}
