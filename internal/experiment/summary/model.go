package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/prediction"
)

// Tolerances within which a measurement agrees with the model.
const (
	SuccessTolerance = 0.03  // absolute, in success ratio
	LatencyTolerance = 0.10  // relative, for p50 and p99
	LatencyFloor     = 0.010 // seconds: below this, differences are noise
)

// StepModel is what the model (loadlab model) predicted for a step before
// it ran, kept beside the measurement so that the analysis can compare
// them from the run folder alone. Its figures are package prediction's,
// as `loadlab model -type json` prints them (nanoseconds); a summary.json
// written before they were (no version) is read too (see modelv1.go).
type StepModel struct {
	// Version is the shape the figures are kept in: StepModelVersion.
	Version int `json:"version"`
	// Error says why the step could not be modelled ("" when it was).
	Error string `json:"error,omitempty"`
	// Notes name what the model left out (a command component, a scenario
	// aimed elsewhere, fetched bodies).
	Notes     []string              `json:"notes,omitempty"`
	Scenarios []prediction.Scenario `json:"scenarios,omitempty"`
	Pools     []prediction.Pool     `json:"pools,omitempty"`
	Breakers  []prediction.Breaker  `json:"breakers,omitempty"`
	// Closed are the closed forms of the pools they describe.
	Closed []prediction.ClosedForm `json:"closed_forms,omitempty"`
	// Fragile says, per scenario, why its prediction is fragile: its
	// requests met a configured bound within a hair (an origin latency
	// equal to the request timeout), where the real system decides by
	// timer wake-ups.
	Fragile []string `json:"fragile,omitempty"`
}

// StepModelVersion is the shape of StepModel this loadlab writes: 2 since
// the prediction has one type (package prediction). Version 1 (summary.json
// with no version under a step's model) kept seconds under keys of its own.
const StepModelVersion = 2

// MarshalJSON writes m in the current shape (StepModelVersion).
func (m StepModel) MarshalJSON() ([]byte, error) {
	type plain StepModel
	m.Version = StepModelVersion
	return json.Marshal(plain(m))
}

// UnmarshalJSON reads m in the current shape or, with no version, in
// version 1's.
func (m *StepModel) UnmarshalJSON(data []byte) error {
	type plain StepModel
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch {
	case v.Version > StepModelVersion:
		return fmt.Errorf("model: version %d is newer than this loadlab reads (%d)", v.Version, StepModelVersion)
	case v.Version >= 2:
		return json.Unmarshal(data, (*plain)(m))
	}
	var old stepModelV1
	if err := json.Unmarshal(data, &old); err != nil {
		return err
	}
	*m = old.upgrade()
	return nil
}

// PredictedScenario returns the named scenario's prediction, or nil.
func (m *StepModel) PredictedScenario(name string) *prediction.Scenario {
	if m == nil {
		return nil
	}
	for i := range m.Scenarios {
		if m.Scenarios[i].Name == name {
			return &m.Scenarios[i]
		}
	}
	return nil
}

// Check is one scenario's prediction against its measurement.
type Check struct {
	Step, Scenario        string
	Predicted, Measured   *metrics.LatencySummary
	PSuccess, MSuccess    float64
	Success, P50, P99, OK bool
}

// Checks compares every predicted scenario of the run with its
// measurement.
func Checks(sum *Summary) []Check {
	var out []Check
	for _, st := range sum.Steps {
		if st.Aborted != "" {
			continue
		}
		for _, sc := range st.Scenarios {
			p := st.Model.PredictedScenario(sc.Name)
			if p == nil || sc.RunError != "" || sc.Requests == 0 {
				continue
			}
			c := Check{Step: st.Name, Scenario: sc.Name, Predicted: &p.Latencies, Measured: &sc.Latency, PSuccess: p.Success, MSuccess: sc.Success}
			c.Success = math.Abs(sc.Success-p.Success) <= SuccessTolerance
			c.P50 = LatencyAgrees(p.Latencies.P50, sc.Latency.P50)
			c.P99 = LatencyAgrees(p.Latencies.P99, sc.Latency.P99)
			c.OK = c.Success && c.P50 && c.P99
			out = append(out, c)
		}
	}
	return out
}

// LatencyAgrees says whether a measured latency agrees with the predicted
// one.
func LatencyAgrees(pred, meas time.Duration) bool {
	return math.Abs(meas.Seconds()-pred.Seconds()) <= max(LatencyTolerance*pred.Seconds(), LatencyFloor)
}

// SearchResult is a capacity search's answer for one configuration: the
// highest rate of the searched scenario at which the thresholds held.
type SearchResult struct {
	Configuration string  `json:"configuration"`
	Scenario      string  `json:"scenario"`
	Rate          float64 `json:"rate"`      // 0: no rate in the range held
	Precision     float64 `json:"precision"` // relative width of the answer
	Min           float64 `json:"min"`       // the range searched
	Max           float64 `json:"max"`
	AtMax         bool    `json:"at_max,omitempty"` // it still held at the range's top
	// Predicted is the model's knee for the configuration (0: not modelled).
	Predicted float64 `json:"predicted,omitempty"`
	// Confirmed says a confirmation run at Rate held too.
	Confirmed bool `json:"confirmed"`
	// Broken is the threshold that failed just above Rate.
	Broken string        `json:"broken,omitempty"`
	Probes []SearchProbe `json:"probes"`
}

// SearchProbe is one run of a capacity search.
type SearchProbe struct {
	Rate    float64 `json:"rate"`
	Step    string  `json:"step"`
	Pass    bool    `json:"pass"`
	Success float64 `json:"success"`
	P99     float64 `json:"p99_seconds"`
	// Confirmation marks the run that confirmed the answer.
	Confirmation bool `json:"confirmation,omitempty"`
	// Broken is the first threshold that failed.
	Broken string `json:"broken,omitempty"`
}

// SearchSentence is a search's answer in one sentence, for the report's
// first screen: "512 workers + 4096 overflow: 1,040 req/s ± 2%; ...".
func SearchSentence(rs []SearchResult) string {
	var parts []string
	for _, r := range rs {
		var s string
		switch {
		case r.Rate == 0:
			s = fmt.Sprintf("%s: no rate from %s req/s holds", r.Configuration, load.FmtRate(r.Min))
		case r.AtMax:
			s = fmt.Sprintf("%s: still holds at %s req/s, the top of the range", r.Configuration, load.FmtRate(r.Rate))
		case !r.Confirmed:
			var failed []string
			for _, p := range r.Probes {
				if p.Confirmation && !p.Pass {
					failed = append(failed, load.FmtRate(p.Rate))
				}
			}
			s = fmt.Sprintf("%s: below %s req/s, not confirmed (the confirmation runs at %s req/s failed)", r.Configuration, load.FmtRate(r.Rate/(1-r.Precision)), strings.Join(failed, ", "))
		default:
			s = fmt.Sprintf("%s: %s req/s ± %.0f%%", r.Configuration, load.FmtRate(r.Rate), 100*r.Precision)
		}
		if r.Predicted > 0 {
			s += fmt.Sprintf(" (model: %s)", load.FmtRate(r.Predicted))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
