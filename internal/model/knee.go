package model

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// Knee is the highest constant rate of one scenario at which a
// configuration still meets the thresholds, found by bracketing and
// bisection on simulations.
type Knee struct {
	Configuration string   `json:"configuration"`
	Scenario      string   `json:"scenario"`
	Rate          float64  `json:"rate"`      // requests/s; 0 when no rate holds
	Precision     float64  `json:"precision"` // relative, e.g. 0.02
	Thresholds    []string `json:"thresholds"`
	// Unbounded says the thresholds still held at the search's top rate.
	Unbounded bool `json:"unbounded,omitempty"`
	// Broken is the first threshold that fails just above the knee.
	Broken string      `json:"broken,omitempty"`
	Points []KneePoint `json:"points"`
}

// KneePoint is one rate the search simulated.
type KneePoint struct {
	Rate    float64       `json:"rate"`
	Success float64       `json:"success"`
	P50     time.Duration `json:"50th"`
	P99     time.Duration `json:"99th"`
	Pass    bool          `json:"pass"`
}

// DefaultSLO is judged when a plan has no thresholds (the capacity
// search's, experiment.DefaultSLO, is the same).
const DefaultSLO = "success >= 99%"

// KneeOptions bound a knee search.
type KneeOptions struct {
	Precision float64 // relative width of the answer (default 0.02)
	Max       float64 // highest rate tried (default 1,000,000/s)
}

// SearchKnee varies scenario's rate in in, holding everything else, and
// returns the highest rate meeting ths (DefaultSLO when ths is empty).
// The search starts from the scenario's own rate.
func SearchKnee(in Input, scenario string, ths []threshold.Threshold, o KneeOptions) (k Knee, err error) {
	if o.Precision <= 0 {
		o.Precision = 0.02
	}
	if o.Max <= 0 {
		o.Max = 1e6
	}
	if len(ths) == 0 {
		t, err := threshold.Parse(DefaultSLO)
		if err != nil {
			return Knee{}, err
		}
		ths = []threshold.Threshold{t}
	}
	k = Knee{Scenario: scenario, Precision: o.Precision}
	defer func() { sort.Slice(k.Points, func(i, j int) bool { return k.Points[i].Rate < k.Points[j].Rate }) }()
	for _, t := range ths {
		k.Thresholds = append(k.Thresholds, t.Source)
	}
	idx := -1
	for i, sc := range in.Scenarios {
		if sc.Name == scenario {
			idx = i
		}
	}
	if idx < 0 {
		return k, fmt.Errorf("model: no scenario %q to search", scenario)
	}
	base := in.Scenarios[idx].Schedule
	if base.Kind != schedule.Constant {
		return k, fmt.Errorf("model: scenario %q: the knee is searched over a constant rate, not a %s", scenario, base.String())
	}
	eval := func(rate float64) (bool, string, error) {
		sp, err := schedule.ParseSpec(formatRate(rate))
		if err != nil {
			return false, "", err
		}
		run := in
		run.Scenarios = append([]Scenario(nil), in.Scenarios...)
		if run.Scenarios[idx].Schedule, err = schedule.New(sp, base.Duration); err != nil {
			return false, "", err
		}
		p, err := Predict(run)
		if err != nil {
			return false, "", err
		}
		pass, broken := Judge(p, ths)
		s := p.Scenario(scenario)
		k.Points = append(k.Points, KneePoint{Rate: rate, Success: s.Success, P50: s.Latencies.P50, P99: s.Latencies.P99, Pass: pass})
		return pass, broken, nil
	}
	r := base.Rate.PerSecond()
	pass, broken, err := eval(r)
	if err != nil {
		return k, err
	}
	var lo, hi float64
	if pass {
		lo = r
		for hi = r * 2; ; hi *= 2 {
			if hi > o.Max {
				k.Rate, k.Unbounded = lo, true
				return k, nil
			}
			if pass, broken, err = eval(hi); err != nil {
				return k, err
			} else if !pass {
				break
			}
			lo = hi
		}
	} else {
		hi = r
		for lo = r / 2; ; lo /= 2 {
			if lo < 0.01 {
				k.Broken = broken
				return k, nil
			}
			var b string
			if pass, b, err = eval(lo); err != nil {
				return k, err
			} else if pass {
				break
			}
			hi, broken = lo, b
		}
	}
	for (hi-lo)/lo > o.Precision {
		mid := (lo + hi) / 2
		p, b, err := eval(mid)
		if err != nil {
			return k, err
		}
		if p {
			lo = mid
		} else {
			hi, broken = mid, b
		}
	}
	k.Rate, k.Broken = lo, broken
	return k, nil
}

// Judge checks a prediction against thresholds: whether all hold, and the
// first that does not.
func Judge(p *Prediction, ths []threshold.Threshold) (bool, string) {
	for _, t := range ths {
		for _, s := range p.Scenarios {
			if !t.Applies(s.Scenario) {
				continue
			}
			if actual, pass, ok := t.Check(s); ok && !pass {
				return false, fmt.Sprintf("%s (predicted %s)", t.Source, t.Format(actual))
			}
		}
	}
	return true, ""
}

// formatRate writes a rate in the schedule grammar.
func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', 3, 64) + "/s" }
