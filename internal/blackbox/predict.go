package blackbox

import (
	"math"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// bounds are the fit at the two ends of its intervals: the slow one (the
// capacity's low end, the service time's mean at its high end) and the
// fast one. The servers are those that give the capacity's end at that
// service time (at least one).
func (f *Fit) bounds() []*Fit {
	if f.ServiceMean <= 0 || f.ServiceMeanCI[0] <= 0 || f.ServiceMeanCI[1] <= 0 {
		return nil
	}
	var out []*Fit
	for end := range 2 {
		g := *f
		s := f.ServiceMeanCI[1-end]
		scale := float64(s) / float64(f.ServiceMean)
		q := make([]time.Duration, len(f.Service.Quantiles))
		for i, d := range f.Service.Quantiles {
			q[i] = time.Duration(float64(d) * scale)
		}
		g.Service, g.ServiceMean = recipe.Empirical{Quantiles: q}, s
		if c := f.CapacityCI[end]; c > 0 && !math.IsInf(f.Capacity, 0) {
			g.Servers = max(1, int(math.Round(c*s.Seconds()*f.slowdown(f.Servers))))
		}
		out = append(out, &g)
	}
	return out
}

// Predict predicts one attack through the fitted queue, with the range
// the fit's intervals give (the attack predicted through the fit's slow
// and fast ends too). workers closes the loop of an unpaced schedule.
func (f *Fit) Predict(sch *schedule.Schedule, timeout time.Duration, seed uint64, workers int) (*model.Prediction, *model.Interval, error) {
	predict := func(g *Fit) (*model.Prediction, error) {
		in, err := g.Input(sch, timeout, seed)
		if err != nil {
			return nil, err
		}
		in.Scenarios[0].Workers = workers
		return model.Predict(in)
	}
	pr, err := predict(f)
	if err != nil {
		return nil, nil, err
	}
	all := []*model.ScenarioPrediction{pr.Scenarios[0]}
	for _, g := range f.bounds() {
		b, err := predict(g)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, b.Scenarios[0])
	}
	return pr, model.NewInterval(all...), nil
}

// Summary is the fit as a prediction's JSON row carries it: its
// parameters with their intervals and its cost, without the probes.
func (f *Fit) Summary() *Fit {
	g := *f
	g.Probes = nil
	return &g
}

// System is the fit as the model's AttackSystem: attacks predicted
// through the fitted queue with timeout per request, and seed.
func (f *Fit) System(timeout time.Duration, seed uint64) model.AttackSystem {
	return fitSystem{f, timeout, seed}
}

type fitSystem struct {
	f       *Fit
	timeout time.Duration
	seed    uint64
}

func (s fitSystem) AttackInput(sch *schedule.Schedule) (model.Input, error) {
	return s.f.Input(sch, s.timeout, s.seed)
}

func (s fitSystem) PredictAttack(sch *schedule.Schedule, in model.Input) (model.StepPrediction, error) {
	pr, iv, err := s.f.Predict(sch, s.timeout, s.seed, in.Scenarios[0].Workers)
	if err != nil {
		return model.StepPrediction{}, err
	}
	return model.StepPrediction{Configuration: "fitted queue", Prediction: pr, Notes: s.f.Notes, Interval: iv, Fit: s.f.Summary()}, nil
}
