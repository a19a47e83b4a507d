package experiment

import (
	"context"
	"time"

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

// Calibrator is a Modeller that also predicts black boxes: a scenario
// with `calibrate: true` is calibrated against its live target, once its
// components are up, once per configuration; the Modeller then predicts
// it from the fitted queue (and searches its knee there).
type Calibrator interface {
	// Calibrated reports whether scenario is fitted in st's configuration.
	Calibrated(p *plan.Plan, st *plan.Step, scenario string) bool
	// Calibrate fits scenario in st's configuration against target, one
	// request line with the components' addresses filled in, and returns
	// what the fit cost (its requests and highest rate; the runner names
	// the rest).
	Calibrate(ctx context.Context, p *plan.Plan, st *plan.Step, scenario, target string) (summary.Calibration, error)
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
	hasOrigin := calibrated(st)
	for _, c := range r.plan.Components {
		hasOrigin = hasOrigin || c.Kind == plan.KindOrigin
	}
	if !hasOrigin {
		return nil
	}
	return r.opts.Model.Predict(r.plan, st)
}

// calibrated reports whether a scenario of st asks for calibration.
func calibrated(st *plan.Step) bool {
	for _, sc := range st.Scenarios {
		if sc.Calibrate {
			return true
		}
	}
	return false
}

// calibrate fits the step's scenarios that ask for it and are not fitted
// in its configuration yet, against their live targets (the components
// must be up), and keeps what each fit cost for summary.json. It reports
// whether it fitted any; a calibration that fails is said on the progress
// line and the scenario stays unpredicted.
func (r *runner) calibrate(ctx context.Context, st *plan.Step) bool {
	cal, ok := r.opts.Model.(Calibrator)
	if !ok {
		return false
	}
	fitted := false
	for _, sc := range st.Scenarios {
		if !sc.Calibrate || sc.Flow != "" || cal.Calibrated(r.plan, st, sc.Name) {
			continue
		}
		text, err := r.targetText(sc)
		if err != nil {
			r.progress("calibration of %s: %v", sc.Name, err)
			continue
		}
		target := firstTarget(text)
		r.progress("calibration of %s: %s", sc.Name, target)
		began := time.Now()
		c, err := cal.Calibrate(ctx, r.plan, st, sc.Name, target)
		if err != nil {
			r.progress("calibration of %s failed: %v", sc.Name, err)
			continue
		}
		c.Configuration, c.Scenario, c.Target, c.Before, c.Took = r.plan.Configuration(st), sc.Name, target, st.Name, time.Since(began)
		if r.plan.Search != nil {
			c.Before = "" // a search's template, not a step that ran
		}
		r.calibrations = append(r.calibrations, c)
		fitted = true
	}
	return fitted
}
