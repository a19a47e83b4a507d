package model

import (
	"fmt"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// AttackSystem is what a quick attack (one scenario, named "attack",
// without a plan) is predicted through: the playground's proxy and origin
// (Playground), or a queue fitted to a live system (blackbox.Fit's
// System).
type AttackSystem interface {
	// AttackInput is the model's input for one attack on sch.
	AttackInput(sch *schedule.Schedule) (Input, error)
	// PredictAttack predicts the attack on sch whose input is in (its
	// workers set): the step's prediction and what the system adds to
	// it (notes, an interval, the costs assumed); PredictAttacks names
	// and numbers the step.
	PredictAttack(sch *schedule.Schedule, in Input) (StepPrediction, error)
}

// Attacks are the quick attacks to predict: one per schedule, each of
// Workers users when Workers > 0 (a closed loop), on Target (named in the
// steps' names).
type Attacks struct {
	Schedules []*schedule.Schedule
	Workers   int
	Target    string
	// Knee, when not nil, asks for the knee of the last attack's rate:
	// the highest that meets Thresholds (see SearchKnee).
	Knee       *KneeOptions
	Thresholds []threshold.Threshold
}

// KneeError is a knee search that could not be done on the attacks.
type KneeError struct{ Err error }

func (e *KneeError) Error() string { return e.Err.Error() }

// Unwrap returns the search's error.
func (e *KneeError) Unwrap() error { return e.Err }

// PredictAttacks predicts a's attacks through sys, one step each, and,
// when a asks, searches the knee of the last one. An attack the model
// cannot predict is bad input; a knee search that fails is a *KneeError.
func PredictAttacks(sys AttackSystem, a Attacks) ([]StepPrediction, []Knee, error) {
	var steps []StepPrediction
	var in Input
	for i, sch := range a.Schedules {
		var err error
		if in, err = sys.AttackInput(sch); err != nil {
			return nil, nil, err
		}
		in.Scenarios[0].Workers = a.Workers
		st, err := sys.PredictAttack(sch, in)
		if err != nil {
			return nil, nil, badinput.Errorf("%v", err)
		}
		st.Step, st.Name = i+1, AttackName(sch, a.Workers)+" on "+a.Target
		steps = append(steps, st)
	}
	if a.Knee == nil || len(steps) == 0 {
		return steps, nil, nil
	}
	k, err := SearchKnee(in, "attack", a.Thresholds, *a.Knee)
	if err != nil {
		return nil, nil, &KneeError{err}
	}
	return steps, []Knee{k}, nil
}

// AttackName names a predicted attack: its rate and length, or its users.
func AttackName(sch *schedule.Schedule, workers int) string {
	if workers > 0 {
		return fmt.Sprintf("%d users (closed loop) for %s", workers, sch.Duration)
	}
	return sch.String() + " for " + sch.Length().String()
}

// Playground is the playground as an AttackSystem: the origin of the
// recipe file Recipe, behind the proxy of the config file Config (""
// for none: the attack goes to the origin), sent Targets with Timeout
// per request.
type Playground struct {
	Config, Recipe string
	Targets        []*targets.Target
	Timeout        time.Duration
	Seed           uint64
	// Costs returns the pool manager's costs to assume and which they
	// are; called once the files are read (the input known good), before
	// each prediction, it measures them the first time. Nil: DefaultCosts.
	Costs func() (Costs, string, error)
}

func (pg Playground) costs() (Costs, string, error) {
	if pg.Costs == nil {
		return DefaultCosts, "", nil
	}
	return pg.Costs()
}

// AttackInput reads the files (each attack gets its own components, as
// each run of the real ones starts them afresh).
func (pg Playground) AttackInput(sch *schedule.Schedule) (Input, error) {
	in := Input{Seed: pg.Seed}
	var err error
	if in.Origin, err = ReadRecipe(pg.Recipe); err != nil {
		return in, err
	}
	if pg.Config != "" {
		if in.Proxy, err = config.Load(pg.Config); err != nil {
			return in, err
		}
	}
	if in.Costs, _, err = pg.costs(); err != nil {
		return in, err
	}
	in.Scenarios = []Scenario{{Name: "attack", Schedule: sch, Targets: pg.Targets, ToProxy: []bool{pg.Config != ""}, Timeout: pg.Timeout}}
	return in, nil
}

// PredictAttack simulates the attack, with the closed forms that check it.
func (pg Playground) PredictAttack(_ *schedule.Schedule, in Input) (StepPrediction, error) {
	_, said, err := pg.costs()
	if err != nil {
		return StepPrediction{}, err
	}
	pr, err := Predict(in)
	if err != nil {
		return StepPrediction{}, err
	}
	return StepPrediction{Prediction: pr, ClosedForms: ClosedForms(in), Notes: pr.Unsupported, Costs: said}, nil
}
