package model

import (
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/prediction"
)

// Prediction is what the model expects one step to measure.
type Prediction struct {
	Scenarios []*ScenarioPrediction `json:"scenarios"`
	Pools     []prediction.Pool     `json:"pools,omitempty"`
	Breakers  []prediction.Breaker  `json:"breakers,omitempty"`
	// Unsupported names what the model could not represent; the
	// prediction covers the rest.
	Unsupported []string `json:"unsupported,omitempty"`
	// Elapsed is how long the simulation took (wall clock).
	Elapsed time.Duration `json:"-"`
}

// ScenarioPrediction is the simulation's tally of one scenario: its
// predicted figures, and what they are computed from.
type ScenarioPrediction struct {
	prediction.Scenario

	hist            *hdrhistogram.Histogram
	total, min, max time.Duration
	ties            []tieSpan // what each of Ties met, index for index
}

func newScenarioPrediction(name string) *ScenarioPrediction {
	return &ScenarioPrediction{Scenario: prediction.Scenario{Name: name, StatusCodes: map[string]uint64{}, Answered: map[string]uint64{}},
		hist: metrics.NewHistogram()}
}

// record counts one response the client saw (code 0: the client gave up
// or the connection failed).
func (p *ScenarioPrediction) record(code int, by string, latency time.Duration) {
	p.Requests++
	p.StatusCodes[strconv.Itoa(code)]++
	p.Answered[by]++
	if code >= 200 && code < 400 {
		p.Success++
	}
	metrics.RecordLatency(p.hist, latency)
	p.total += latency
	p.max = max(p.max, latency)
	if p.Requests == 1 || latency < p.min {
		p.min = latency
	}
}

// finish turns counts into ratios and percentiles.
func (p *ScenarioPrediction) finish() {
	if p.Requests == 0 {
		return
	}
	p.Success /= float64(p.Requests)
	h := p.hist
	// The histogram's buckets round up; no percentile is above the exact
	// maximum.
	q := func(pct float64) time.Duration { return min(time.Duration(h.ValueAtQuantile(pct)), p.max) }
	p.Latencies = metrics.LatencySummary{Mean: p.total / time.Duration(p.Requests), P50: q(50), P90: q(90), P95: q(95), P99: q(99), Max: p.max}
}

// Scenario returns the named scenario's prediction, or nil.
func (p *Prediction) Scenario(name string) *ScenarioPrediction {
	for _, s := range p.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return nil
}
