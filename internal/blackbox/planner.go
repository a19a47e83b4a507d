package blackbox

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/model"
)

// Planner is the model as `loadlab run` uses it, black boxes included: a
// step whose scenarios ask for calibration (`calibrate: true`) is
// predicted from the queues fitted against their live targets; any other
// step by the playground's own model (model.Planner). It implements
// experiment.Modeller and experiment.Calibrator.
type Planner struct {
	model.Planner
	// Step is each calibration probe's length (default 2 s); Log receives
	// the probes.
	Step time.Duration
	Log  io.Writer

	mu   sync.Mutex
	fits map[string]*Fit // by fitKey
}

// fitKey names the system a scenario's fit describes: the components'
// variants (plan variables reach only names and scenarios, never a
// component) and the scenario's targets. Not the step's name, nor its
// rate: a capacity search's probes, or a matrix over rates, reuse the one
// calibration of their configuration instead of calibrating before each.
func fitKey(_ *plan.Plan, st *plan.Step, scenario string) string {
	key := fmt.Sprint(st.Variants) + "\x00" + scenario
	for _, sc := range st.Scenarios {
		if sc.Name == scenario {
			key += "\x00" + sc.Targets + "\x00" + sc.TargetsFile
		}
	}
	return key
}

func (pl *Planner) fit(p *plan.Plan, st *plan.Step, scenario string) *Fit {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.fits[fitKey(p, st, scenario)]
}

// Calibrated reports whether scenario is fitted in st's configuration.
func (pl *Planner) Calibrated(p *plan.Plan, st *plan.Step, scenario string) bool {
	return pl.fit(p, st, scenario) != nil
}

// Calibrate fits scenario in st's configuration against target, with the
// scenario's timeout per request, and returns what the fit cost.
func (pl *Planner) Calibrate(ctx context.Context, p *plan.Plan, st *plan.Step, scenario, target string) (summary.Calibration, error) {
	var timeout time.Duration
	for _, sc := range st.Scenarios {
		if sc.Name == scenario {
			timeout = sc.Timeout
		}
	}
	f, err := Calibrate(ctx, Options{Target: target, Timeout: timeout, Step: pl.Step, Log: pl.Log})
	if err != nil {
		return summary.Calibration{}, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.fits == nil {
		pl.fits = map[string]*Fit{}
	}
	pl.fits[fitKey(p, st, scenario)] = f
	return summary.Calibration{Requests: f.Requests, HighestRate: f.HighestRate}, nil
}

// stepInputs are the model inputs of st's calibrated scenarios, each
// through its own fitted queue; ok is false when a scenario asks for
// calibration and is not fitted (yet, or its calibration failed).
func (pl *Planner) stepInputs(p *plan.Plan, st *plan.Step) (ins []model.Input, fits []*Fit, notes []string, err error) {
	for _, sc := range st.Scenarios {
		if !sc.Calibrate {
			notes = append(notes, fmt.Sprintf("scenario %s is not calibrated: left out beside the fitted ones", sc.Name))
			continue
		}
		f := pl.fit(p, st, sc.Name)
		if f == nil {
			return nil, nil, nil, fmt.Errorf("scenario %s is not calibrated (its calibration runs once its components are up, or failed)", sc.Name)
		}
		sch, err := schedule.New(sc.Rate, sc.Duration)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		in, err := f.Input(sch, sc.Timeout, pl.Seed)
		if err != nil {
			return nil, nil, nil, err
		}
		in.Scenarios[0].Name, in.Scenarios[0].StartAfter = sc.Name, sc.StartAfter
		if sch.Unpaced() {
			in.Scenarios[0].Workers = sc.MaxWorkers
		}
		ins, fits = append(ins, in), append(fits, f)
		for _, n := range f.Notes {
			notes = append(notes, "fitted queue of "+sc.Name+": "+n)
		}
	}
	return ins, fits, notes, nil
}

// Predict models step st of p, as summary.json keeps it.
func (pl *Planner) Predict(p *plan.Plan, st *plan.Step) *summary.StepModel {
	if !askCalibration(st) {
		return pl.Planner.Predict(p, st)
	}
	sp := model.StepPrediction{Step: st.Index + 1, Name: st.Name, Configuration: p.Configuration(st)}
	ins, _, notes, err := pl.stepInputs(p, st)
	sp.Notes = notes
	if err != nil {
		sp.Err = err
		return sp.Summary()
	}
	for _, in := range ins {
		pr, err := model.Predict(in)
		if err != nil {
			sp.Err = err
			return sp.Summary()
		}
		if sp.Prediction == nil {
			sp.Prediction = pr
		} else {
			sp.Prediction.Scenarios = append(sp.Prediction.Scenarios, pr.Scenarios...)
		}
	}
	return sp.Summary()
}

// Knee searches the highest rate of scenario that meets ths through its
// fitted queue; for a step without calibration, the playground's model.
func (pl *Planner) Knee(p *plan.Plan, st *plan.Step, scenario string, ths []threshold.Threshold, precision, max float64) (float64, bool) {
	if !askCalibration(st) {
		return pl.Planner.Knee(p, st, scenario, ths, precision, max)
	}
	ins, _, _, err := pl.stepInputs(p, st)
	if err != nil {
		return 0, false
	}
	for _, in := range ins {
		if in.Scenarios[0].Name != scenario {
			continue
		}
		k, err := model.SearchKnee(in, scenario, ths, model.KneeOptions{Precision: precision, Max: max, SuccessOnly: true})
		if err != nil || k.Rate == 0 {
			return 0, false
		}
		return k.Rate, true
	}
	return 0, false
}

func askCalibration(st *plan.Step) bool {
	for _, sc := range st.Scenarios {
		if sc.Calibrate {
			return true
		}
	}
	return false
}
