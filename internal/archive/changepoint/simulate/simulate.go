// Package simulate measures package changepoint on synthetic series: how
// often it finds a change put into a noisy series, and how often it
// reports one in a series with none. Its tests and bench/verdict use it.
//
// A series is Points figures around 100, each multiplied by the
// scenario's shape and by log-normal noise exp(σ·N(0,1)), σ = Noise;
// series i of a scenario is drawn from a PCG seeded with (Seed, i), so a
// rate is the same on every machine.
package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/loadlab/loadlab/internal/archive/changepoint"
)

// Scenario is one kind of series.
type Scenario struct {
	Name   string
	Points int
	Noise  float64 // σ of the log-normal noise: 0.03 is about 3%
	// Shift is the figure's factor at point i (the change put in); nil: 1.
	Shift func(i int) float64
	Want  []int // the changes put in: the first point after each
}

// Flat is a series of n points with no change.
func Flat(n int, noise float64) Scenario {
	return Scenario{Name: fmt.Sprintf("flat, %d points, %.0f%% noise", n, 100*noise), Points: n, Noise: noise}
}

// Step is a series of n points whose figure is multiplied by 1+size from
// point at on.
func Step(n, at int, size, noise float64) Scenario {
	return Scenario{
		Name:   fmt.Sprintf("%+.0f%% at point %d of %d, %.0f%% noise", 100*size, at+1, n, 100*noise),
		Points: n, Noise: noise, Want: []int{at},
		Shift: func(i int) float64 {
			if i >= at {
				return 1 + size
			}
			return 1
		},
	}
}

// Excursion is a series of n points whose figure is multiplied by 1+size
// for the runs points from at on, then comes back.
func Excursion(n, at, runs int, size, noise float64) Scenario {
	return Scenario{
		Name:   fmt.Sprintf("%+.0f%% for %d points from point %d of %d, %.0f%% noise", 100*size, runs, at+1, n, 100*noise),
		Points: n, Noise: noise, Want: []int{at, at + runs},
		Shift: func(i int) float64 {
			if i >= at && i < at+runs {
				return 1 + size
			}
			return 1
		},
	}
}

// Rate is what Run counts over a scenario's series.
type Rate struct {
	Series int
	Found  int // series where every change put in was found, at its point
	Alarms int // series with a change reported where none was put in
	// Undecided counts the series with a candidate the detector could not
	// decide (changepoint.CannotTell).
	Undecided int
}

// FoundRate is the share of series where the changes were found.
func (r Rate) FoundRate() float64 { return float64(r.Found) / float64(r.Series) }

// AlarmRate is the share of series with a false alarm.
func (r Rate) AlarmRate() float64 { return float64(r.Alarms) / float64(r.Series) }

// Series returns series i of the scenario.
func (s Scenario) Series(seed uint64, i int) []float64 {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	xs := make([]float64, s.Points)
	for j := range xs {
		xs[j] = 100 * math.Exp(s.Noise*rng.NormFloat64())
		if s.Shift != nil {
			xs[j] *= s.Shift(j)
		}
	}
	return xs
}

// Run analyses n series of the scenario with options o (Log set: the
// noise is a ratio).
func Run(s Scenario, n int, seed uint64, o changepoint.Options) Rate {
	o.Log = true
	r := Rate{Series: n}
	for i := range n {
		res := changepoint.Analyze(s.Series(seed, i), o)
		var got []int
		alarm := false
		for _, c := range res.Changes {
			got = append(got, c.Index)
			if !slices.Contains(s.Want, c.Index) {
				alarm = true
			}
		}
		if len(s.Want) > 0 && !slices.ContainsFunc(s.Want, func(w int) bool { return !slices.Contains(got, w) }) {
			r.Found++
		}
		if alarm {
			r.Alarms++
		}
		if len(res.Undecided) > 0 {
			r.Undecided++
		}
	}
	return r
}
