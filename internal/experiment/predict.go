package experiment

import (
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// Modeller predicts what a step will measure (the model, given by the
// caller so that running plans does not depend on it; see package model).
type Modeller interface {
	// Predict returns the step's prediction as summary.json keeps it.
	Predict(p *plan.Plan, st *plan.Step) *summary.StepModel
	// Knee returns the highest rate of scenario, in st's configuration,
	// at which ths hold, to the relative precision and at most max; false
	// when the model does not cover the step.
	Knee(p *plan.Plan, st *plan.Step, scenario string, ths []threshold.Threshold, precision, max float64) (float64, bool)
}

// DefaultSLO is what a capacity search judges when the plan has no
// thresholds.
const DefaultSLO = "success >= 99%"

// predict runs the model for a step before it runs, when there is one and
// the plan starts the components it knows (an origin, and a proxy in
// front); nil otherwise.
func (r *runner) predict(st *plan.Step) *summary.StepModel {
	if r.opts.Model == nil {
		return nil
	}
	hasOrigin := false
	for _, c := range r.plan.Components {
		hasOrigin = hasOrigin || c.Kind == plan.KindOrigin
	}
	if !hasOrigin {
		return nil
	}
	return r.opts.Model.Predict(r.plan, st)
}
