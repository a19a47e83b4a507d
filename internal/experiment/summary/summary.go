// Package summary holds what a run's summary.json holds: every step's
// figures, the thresholds' verdicts, the warnings and the findings, as plain
// data with no runtime state, so that the analysis (findings) and the
// write-up can work from a run folder long after the run. It imports
// nothing of the runner.
package summary

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// File is the summary's name in a run folder.
const File = "summary.json"

// Summary is what summary.json holds: every step's figures, the
// thresholds' verdicts and the findings.
type Summary struct {
	Plan string `json:"plan"`
	// RunArgs are the arguments of the loadlab run that made the folder
	// (its -set overrides and the plan file).
	RunArgs     []string          `json:"run_args,omitempty"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Started     time.Time         `json:"started"`
	Ended       time.Time         `json:"ended"`
	Version     string            `json:"version"`
	Machine     Machine           `json:"machine"`
	Design      *Design           `json:"design,omitempty"` // the plan's shape, for the analysis and the write-up
	Steps       []*StepResult     `json:"steps"`
	Thresholds  []ThresholdResult `json:"thresholds,omitempty"`
	Aborted     string            `json:"aborted,omitempty"` // why the plan stopped early
	Interrupted bool              `json:"interrupted,omitempty"`
	Warnings    []string          `json:"warnings,omitempty"`
	Findings    []Finding         `json:"findings,omitempty"`
	Search      []SearchResult    `json:"search,omitempty"` // a capacity search's answers, per configuration
	// Calibrations are the black-box fits the run made, with what each
	// cost (none: no scenario asked for calibration, or the run was
	// written before summary.json kept them).
	Calibrations []Calibration `json:"calibrations,omitempty"`
	ExitCode     int           `json:"exit_code"`
	// Health is what the machine did to the run while its attacks went
	// (runblock.Combine of its steps'); nil in a summary written before
	// summary.json kept it.
	Health *runblock.Health `json:"health,omitempty"`
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
	Model         *StepModel         `json:"model,omitempty"` // what the model predicted for the step
	// Health is what the machine did to the step while its scenarios ran
	// (runblock.Combine of theirs); nil before summary.json kept it.
	Health *runblock.Health `json:"health,omitempty"`
}

// ScenarioResult is one scenario's figures within a step.
type ScenarioResult struct {
	Name   string `json:"name"`
	Target string `json:"target"` // first target line
	Rate   string `json:"rate"`
	// Users is a closed loop's users (rate: 0 with workers: N), each
	// sending its next request when its answer came; 0 for a paced
	// scenario.
	Users       int                    `json:"users,omitempty"`
	Duration    string                 `json:"duration"`
	Requests    uint64                 `json:"requests"`
	RateActual  float64                `json:"rate_actual"`
	Throughput  float64                `json:"throughput"`
	Success     float64                `json:"success"`
	Latency     metrics.LatencySummary `json:"latencies"`      // from the due time
	SendLatency metrics.LatencySummary `json:"send_latencies"` // from the send time
	StatusCodes map[string]uint64      `json:"status_codes"`
	Errors      []string               `json:"errors,omitempty"`
	Dropped     uint64                 `json:"dropped,omitempty"`
	// DroppedAtMaxWorkers is the part of Dropped that was due while
	// max_workers requests were in flight: the target's backlog, not the
	// generator falling behind.
	DroppedAtMaxWorkers uint64     `json:"dropped_at_max_workers,omitempty"`
	Late                uint64     `json:"late,omitempty"`
	MaxLag              float64    `json:"max_lag_seconds,omitempty"`
	LagP99              float64    `json:"lag_p99_seconds,omitempty"` // the lag 99% of the requests stayed within
	Results             string     `json:"results"`                   // results stream, relative to the output folder
	Report              string     `json:"report"`                    // text report, relative to the output folder
	RunError            string     `json:"run_error,omitempty"`
	Staircase           *Staircase `json:"staircase,omitempty"` // the pool staircase of latency, when there was one
	// Flow is a flow scenario's sessions, steps and checks (nil for a
	// scenario of single requests, or before summary.json kept them).
	Flow *Flow `json:"flow,omitempty"`
	// Health is what the machine did to the scenario: its lag (from its
	// results) and the machine's shares while the step ran (package
	// runblock/probe); nil before summary.json kept it.
	Health *runblock.Health `json:"health,omitempty"`
}

// UnmarshalJSON reads a scenario's figures, its latencies in either shape:
// nanoseconds under vegeta's keys (latencies, send_latencies), or seconds
// (latency_seconds, send_latency_seconds) as summary.json kept them before
// it had one latency summary.
func (s *ScenarioResult) UnmarshalJSON(data []byte) error {
	type plain ScenarioResult
	v := struct {
		*plain
		Old     *latencySeconds `json:"latency_seconds"`
		OldSend *latencySeconds `json:"send_latency_seconds"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if v.Old != nil {
		s.Latency = v.Old.summary()
	}
	if v.OldSend != nil {
		s.SendLatency = v.OldSend.summary()
	}
	return nil
}

// latencySeconds is a latency summary in seconds, as summary.json kept
// one before it had one latency summary (metrics.LatencySummary).
type latencySeconds struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

func (l latencySeconds) summary() metrics.LatencySummary {
	return metrics.LatencySummary{Min: seconds(l.Min), Mean: seconds(l.Mean), P50: seconds(l.P50), P90: seconds(l.P90),
		P95: seconds(l.P95), P99: seconds(l.P99), Max: seconds(l.Max)}
}

// ThresholdResult is one threshold checked against one scenario of one step.
type ThresholdResult struct {
	Threshold string `json:"threshold"`
	Step      string `json:"step"`
	Scenario  string `json:"scenario"`
	Measured  string `json:"measured"`
	Pass      bool   `json:"pass"`
}

// Load reads dir/summary.json as any version wrote it (Parse), with
// the folder's copy of its plan for what an old one did not keep.
func Load(dir string) (*Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return nil, err
	}
	s, err := Parse(data, func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) })
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, File), err)
	}
	return s, nil
}

// Write writes s as dir/summary.json.
func Write(dir string, s *Summary) error {
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, File), append(js, '\n'), 0o644)
}
