package experiment

import (
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/plot"
)

// Summary is what summary.json holds: every step's figures, the
// thresholds' verdicts and the findings.
type Summary struct {
	Plan        string            `json:"plan"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Started     time.Time         `json:"started"`
	Ended       time.Time         `json:"ended"`
	Version     string            `json:"version"`
	Machine     Machine           `json:"machine"`
	Steps       []*StepResult     `json:"steps"`
	Thresholds  []ThresholdResult `json:"thresholds,omitempty"`
	Aborted     string            `json:"aborted,omitempty"` // why the plan stopped early
	Interrupted bool              `json:"interrupted,omitempty"`
	Warnings    []string          `json:"warnings,omitempty"`
	Findings    []string          `json:"findings,omitempty"`
	ExitCode    int               `json:"exit_code"`
}

// StepResult is one step's outcome.
type StepResult struct {
	Index         int                `json:"index"`
	Name          string             `json:"name"`
	Configuration string             `json:"configuration"` // variant labels, or the step name
	Vars          map[string]string  `json:"vars,omitempty"`
	Variants      map[string]string  `json:"variants,omitempty"`
	Dir           string             `json:"dir"`
	Started       time.Time          `json:"started"`
	Ended         time.Time          `json:"ended"`
	Components    []ComponentRun     `json:"components,omitempty"`
	Deaths        []ComponentRun     `json:"deaths,omitempty"`
	Aborted       string             `json:"aborted,omitempty"`
	Reruns        []string           `json:"reruns,omitempty"` // why earlier attempts were discarded
	WarmupResults uint64             `json:"warmup_results,omitempty"`
	Scenarios     []*ScenarioResult  `json:"scenarios"`
	Peaks         map[string]float64 `json:"peaks,omitempty"` // highest value of each sampled series
	Means         map[string]float64 `json:"means,omitempty"` // mean of each sampled series
	Pool          *PoolLimits        `json:"pool,omitempty"`  // the proxy pool the first scenario's route draws from

	samples []sampler.Sample
	axis    plot.TimeAxis
	coll    *plot.Collector
}

// ScenarioResult is one scenario's figures within a step.
type ScenarioResult struct {
	Name        string            `json:"name"`
	Target      string            `json:"target"` // first target line
	Rate        string            `json:"rate"`
	Duration    string            `json:"duration"`
	Requests    uint64            `json:"requests"`
	RateActual  float64           `json:"rate_actual"`
	Throughput  float64           `json:"throughput"`
	Success     float64           `json:"success"`
	Latency     LatencySummary    `json:"latency_seconds"`
	SendLatency LatencySummary    `json:"send_latency_seconds"`
	StatusCodes map[string]uint64 `json:"status_codes"`
	Errors      []string          `json:"errors,omitempty"`
	Dropped     uint64            `json:"dropped,omitempty"`
	Late        uint64            `json:"late,omitempty"`
	MaxLag      float64           `json:"max_lag_seconds,omitempty"`
	Results     string            `json:"results"` // results stream, relative to the output folder
	Report      string            `json:"report"`  // text report, relative to the output folder
	RunError    string            `json:"run_error,omitempty"`
	Staircase   *Staircase        `json:"staircase,omitempty"` // the pool staircase of latency, when there was one

	text string
	m    *metrics.Metrics
	tl   timeline
}

// LatencySummary holds latencies in seconds.
type LatencySummary struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

func latencySummary(l *metrics.Latencies) LatencySummary {
	return LatencySummary{Min: l.Min.Seconds(), Mean: l.Mean.Seconds(), P50: l.P50.Seconds(), P90: l.P90.Seconds(),
		P95: l.P95.Seconds(), P99: l.P99.Seconds(), Max: l.Max.Seconds()}
}

// ThresholdResult is one threshold checked against one scenario of one step.
type ThresholdResult struct {
	Threshold string `json:"threshold"`
	Step      string `json:"step"`
	Scenario  string `json:"scenario"`
	Measured  string `json:"measured"`
	Pass      bool   `json:"pass"`
}

// values adapts a scenario's metrics to threshold.Values.
type values struct{ m *metrics.Metrics }

// Value returns latencies in seconds, ratios in 0..1, rps and requests.
func (v values) Value(metric string) (float64, bool) {
	m := v.m
	if m == nil || m.Requests == 0 {
		return 0, false
	}
	switch metric {
	case "mean":
		return m.Latencies.Mean.Seconds(), true
	case "min":
		return m.Latencies.Min.Seconds(), true
	case "max":
		return m.Latencies.Max.Seconds(), true
	case "success":
		return m.Success, true
	case "errors":
		return 1 - m.Success, true
	case "rps":
		return m.Throughput, true
	case "requests":
		return float64(m.Requests), true
	}
	if len(metric) > 1 && metric[0] == 'p' {
		q, err := strconv.ParseFloat(metric[1:], 64)
		if err == nil {
			return m.Latencies.Quantile(q / 100).Seconds(), true
		}
	}
	return 0, false
}
