package experiment

import (
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/model"
)

// modelSeed makes a run's predictions repeatable.
const modelSeed = 1

// predict runs the model for a step before it runs, when the plan starts
// the components the model knows (an origin, and a proxy in front); nil
// for plans that attack a system loadlab does not start.
func (r *runner) predict(st *plan.Step) *summary.StepModel {
	hasOrigin := false
	for _, c := range r.plan.Components {
		hasOrigin = hasOrigin || c.Kind == plan.KindOrigin
	}
	if !hasOrigin {
		return nil
	}
	return model.PredictStep(r.plan, st, modelSeed).Summary()
}
