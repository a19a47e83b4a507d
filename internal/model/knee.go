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
	Broken string `json:"broken,omitempty"`
	// Latency says how latency was judged: a threshold of the plan's, a
	// bound the search derived (p99 within 10% of the scenario's p99 at a
	// light rate), or not at all (success alone).
	Latency string      `json:"latency_judged"`
	Points  []KneePoint `json:"points"`
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
	// SuccessOnly judges the thresholds as given. By default, when none
	// of them bounds the scenario's latency, the search adds one (see
	// LatencyBound): judged on success alone, a rate above the pool's
	// capacity still "holds" until the queue reaches the checkout
	// timeout, so the knee would depend on the step's duration.
	SuccessOnly bool
}

// LightRate is the rate at which the knee search takes a scenario's
// unloaded latency, and LatencySlack how far above it (relative, or
// LatencyFloor absolute, whichever is larger: the model's usual
// tolerance) its p99 may go at a rate that holds.
const (
	LightRate    = 1.0
	LatencySlack = 0.10
	LatencyFloor = 10 * time.Millisecond
)

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
	predict := func(rate float64) (*Prediction, error) {
		sp, err := schedule.ParseSpec(formatRate(rate))
		if err != nil {
			return nil, err
		}
		run := in
		run.Scenarios = append([]Scenario(nil), in.Scenarios...)
		if run.Scenarios[idx].Schedule, err = schedule.New(sp, base.Duration); err != nil {
			return nil, err
		}
		return Predict(run)
	}
	switch lt := latencyThreshold(ths, scenario); {
	case lt != "":
		k.Latency = "judged by the threshold " + lt
	case o.SuccessOnly:
		k.Latency = "not judged (success alone, as asked)"
	default:
		light, err := predict(min(LightRate, base.Rate.PerSecond()))
		if err != nil {
			return k, err
		}
		t, why, err := LatencyBound(scenario, light.Scenario(scenario).Latencies.P99, min(LightRate, base.Rate.PerSecond()))
		if err != nil {
			return k, err
		}
		ths = append(append([]threshold.Threshold(nil), ths...), t)
		k.Thresholds = append(k.Thresholds, t.Source)
		k.Latency = why
	}
	eval := func(rate float64) (bool, string, error) {
		p, err := predict(rate)
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

// latencyThreshold is the first of ths that bounds scenario's latency, or "".
func latencyThreshold(ths []threshold.Threshold, scenario string) string {
	for _, t := range ths {
		if t.Unit == threshold.Seconds && t.Applies(scenario) && !t.Flow() {
			return t.Source
		}
	}
	return ""
}

// LatencyBound is the latency threshold a knee search adds by default:
// scenario's p99 at most LatencySlack above light, its p99 at a light
// rate, and why, in words.
func LatencyBound(scenario string, light time.Duration, rate float64) (threshold.Threshold, string, error) {
	bound := max(time.Duration(float64(light)*(1+LatencySlack)), light+LatencyFloor)
	t, err := threshold.Parse(fmt.Sprintf("%s: p99 <= %ss", scenario, strconv.FormatFloat(bound.Seconds(), 'f', 4, 64)))
	why := fmt.Sprintf("judged by p99 <= %s, %.0f%% (at least %s) above its p99 at %s req/s (%s), so that a queue building up counts as broken whatever the step's duration",
		round(bound), LatencySlack*100, LatencyFloor, strconv.FormatFloat(rate, 'f', -1, 64), round(light))
	return t, why, err
}

// Judge checks a prediction against thresholds: whether all hold, and the
// first that does not. A flow's thresholds (a step's, its checks', its
// sessions') are not judged: flows are not modelled.
func Judge(p *Prediction, ths []threshold.Threshold) (bool, string) {
	for _, t := range ths {
		for _, s := range p.Scenarios {
			if !t.Applies(s.Name) || t.Flow() {
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
