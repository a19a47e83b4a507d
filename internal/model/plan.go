package model

import (
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// PredictPlan models every step of a plan with the reference costs.
func PredictPlan(p *plan.Plan, seed uint64) []StepPrediction {
	return Planner{Seed: seed}.Plan(p)
}

// Plan models every step of a plan.
func (pl Planner) Plan(p *plan.Plan) []StepPrediction {
	out := make([]StepPrediction, 0, len(p.Steps))
	for _, st := range p.Steps {
		out = append(out, pl.Step(p, st))
	}
	return out
}

// PredictStep models one step of a plan with the reference costs.
func PredictStep(p *plan.Plan, st *plan.Step, seed uint64) StepPrediction {
	return Planner{Seed: seed}.Step(p, st)
}

// input is StepInput with the planner's costs.
func (pl Planner) input(p *plan.Plan, st *plan.Step) (Input, []string, error) {
	in, notes, err := StepInput(p, st, pl.Seed)
	in.Costs = pl.Costs
	return in, notes, err
}

// Step models one step of a plan.
func (pl Planner) Step(p *plan.Plan, st *plan.Step) StepPrediction {
	sp := StepPrediction{Step: st.Index + 1, Name: st.Name, Configuration: p.Configuration(st), Costs: pl.CostsSaid}
	in, notes, err := pl.input(p, st)
	sp.Notes = notes
	if err != nil {
		sp.Err = err
		return sp
	}
	if sp.Prediction, err = Predict(in); err != nil {
		sp.Err = err
		return sp
	}
	sp.Prediction.Unsupported = append(notes, sp.Prediction.Unsupported...)
	sp.Notes = sp.Prediction.Unsupported
	sp.ClosedForms = ClosedForms(in)
	return sp
}

// PlanKnees searches the knee of every configuration of a plan with the
// reference costs (Planner.Knees).
func PlanKnees(p *plan.Plan, scenario string, seed uint64, o KneeOptions) ([]Knee, error) {
	return Planner{Seed: seed}.Knees(p, scenario, o)
}

// Knees searches the knee of every configuration of a plan: the highest
// rate of scenario (the step's fastest constant-rate scenario when "")
// that meets the plan's thresholds, starting from the configuration's
// first step.
func (pl Planner) Knees(p *plan.Plan, scenario string, o KneeOptions) ([]Knee, error) {
	var knees []Knee
	seen := map[string]bool{}
	for _, st := range p.Steps {
		conf := configurationKey(p, st)
		if seen[conf] {
			continue
		}
		seen[conf] = true
		in, _, err := pl.input(p, st)
		if err != nil {
			return knees, err
		}
		name := scenario
		if name == "" {
			name = fastest(in)
		}
		k, err := SearchKnee(in, name, p.Thresholds, o)
		if err != nil {
			return knees, err
		}
		k.Configuration = p.Configuration(st)
		if !hasVariants(p) {
			k.Configuration = ""
		}
		knees = append(knees, k)
	}
	return knees, nil
}

// configurationKey identifies a step's component variants.
func configurationKey(p *plan.Plan, st *plan.Step) string {
	key := ""
	for _, c := range p.Components {
		key += c.Name + "=" + st.Variants[c.Name] + ";"
	}
	return key
}

func hasVariants(p *plan.Plan) bool {
	for _, c := range p.Components {
		if len(c.Variants) > 1 {
			return true
		}
	}
	return false
}

// fastest is the scenario with the highest constant rate.
func fastest(in Input) string {
	best, rate := "", -1.0
	for _, sc := range in.Scenarios {
		if r := sc.Schedule.Rate.PerSecond(); r > rate {
			best, rate = sc.Name, r
		}
	}
	return best
}

// Planner is the model as `loadlab run` and `loadlab model` use it
// (experiment.Modeller): predictions and knees of a plan's steps, with a
// fixed seed so a run's predictions are repeatable, and the serial
// manager's costs to assume.
type Planner struct {
	Seed uint64
	// Costs are the costs to assume (zero: DefaultCosts, the reference
	// machine's); CostsSaid says which they are, for the predictions'
	// output ("" says nothing).
	Costs     Costs
	CostsSaid string
}

// Predict models step st of p, as summary.json keeps it.
func (pl Planner) Predict(p *plan.Plan, st *plan.Step) *summary.StepModel {
	return pl.Step(p, st).Summary()
}

// Knee searches the highest rate of scenario in st's configuration that
// meets ths; false when the model does not cover the step or finds none.
func (pl Planner) Knee(p *plan.Plan, st *plan.Step, scenario string, ths []threshold.Threshold, precision, max float64) (float64, bool) {
	in, notes, err := pl.input(p, st)
	if err != nil || len(notes) > 0 {
		return 0, false
	}
	// The capacity search judges its real runs by ths alone: so does the
	// knee it starts from.
	k, err := SearchKnee(in, scenario, ths, KneeOptions{Precision: precision, Max: max, SuccessOnly: true})
	if err != nil || k.Rate == 0 {
		return 0, false
	}
	return k.Rate, true
}
