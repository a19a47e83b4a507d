package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loadlab/loadlab/internal/attackrun"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/live"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/runblock"
)

// Exit codes of a run, for CI pipelines.
const (
	ExitOK          = 0 // every step ran, every threshold held
	ExitThresholds  = 1 // a threshold was crossed
	ExitAborted     = 3 // a component failed: the plan stopped early
	ExitInterrupted = 130
)

// Options configure Run.
type Options struct {
	Plan    *plan.Plan
	Out     string    // output folder; created if needed, must not hold a previous run
	Exe     string    // the loadlab binary that runs origin and proxy components
	Version string    // loadlab version, for the report
	Log     io.Writer // progress lines (nil: none)
	// Predictor explains the steps a model of the system under test
	// covers; nil means the model's predictions kept in summary.json.
	Predictor findings.Predictor
	// Model, when set, predicts every step it covers before it runs
	// (loadlab run sets the model of package model).
	Model Modeller
	// Live, when set, receives every result and sample and the step in
	// progress (loadlab run -ui).
	Live *live.Server
	// Exporters also receive every result, labelled by scenario (attack)
	// and step: Prometheus (loadlab run -prometheus-addr, remote write),
	// OTLP (-otlp-endpoint).
	Exporters []attackrun.Watcher
}

// Outcome is what Run produced.
type Outcome struct {
	Summary  *summary.Summary
	Report   string // path of report.md
	HTML     string // path of report.html
	ExitCode int
}

type runner struct {
	opts  Options
	plan  *plan.Plan
	out   string
	fleet *fleet
	// calibrations are the black-box fits made so far, with their cost.
	calibrations []summary.Calibration
}

// Run executes the plan and writes the output folder. The report is written
// whatever happens once the folder exists: after every step, after a
// component failure, and after ctx is cancelled (Ctrl-C), for what has run.
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	p := opts.Plan
	if opts.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		opts.Exe = exe
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	// Components run in the plan's folder, so every path handed to them
	// (generated configs, recipes) must not depend on our working directory.
	abs, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	opts.Out = abs
	if err := prepareOut(opts.Out); err != nil {
		// A setup error, not a crossed threshold: exit 2 with one line.
		err = badinput.Field("-out", "%v", err)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(opts.Out, "plan"+filepath.Ext(p.File)), p.Source, 0o644); err != nil {
		return nil, err
	}
	r := &runner{opts: opts, plan: p, out: opts.Out, fleet: &fleet{exe: opts.Exe, out: opts.Out, plan: p}}
	sum := &summary.Summary{Plan: p.File, RunArgs: redact.Args(p.RunArgs()), Name: p.Name, Description: p.Description, Started: time.Now(),
		Version: opts.Version, Machine: machine(), Design: Design(p)}
	var runs []*stepRun
	defer r.fleet.stopAll()
	judged := func(*stepRun) bool { return true }
	if p.Search != nil {
		var confirms map[*stepRun]bool
		var fatal error
		runs, confirms, fatal = r.search(ctx, sum)
		// Probes above the answer fail the thresholds by design: only the
		// confirmation runs are judged.
		judged = func(st *stepRun) bool { return confirms[st] }
		switch {
		case errors.Is(fatal, errInterrupted):
			sum.Interrupted = true
		case fatal != nil:
			sum.Aborted = fatal.Error()
		}
	} else {
		runs = r.runSteps(ctx, sum)
	}
	r.fleet.stopAll()
	sum.Ended = time.Now()
	sum.Health = runHealth(sum.Steps)
	sum.Calibrations = r.calibrations
	r.evaluate(sum, runs, judged)
	out := &Outcome{Summary: sum, Report: filepath.Join(r.out, "report.md"), HTML: filepath.Join(r.out, "report.html"), ExitCode: sum.ExitCode}
	if err := summary.WriteSamples(r.out, sampleRows(runs)); err != nil {
		return out, err
	}
	if err := writeUp(r.out, sum, r.opts.Predictor); err != nil {
		return out, err
	}
	return out, nil
}

// sampleRows lists every step's samples for samples.json.
func sampleRows(runs []*stepRun) []summary.Sample {
	var rows []summary.Sample
	for _, st := range runs {
		for _, s := range st.samples {
			rows = append(rows, summary.Sample{Time: float64(s.Time.UnixNano()) / 1e9, Step: st.Index + 1, Series: s.Series, Unit: s.Unit, Value: s.Value})
		}
	}
	return rows
}

// prepareOut creates the output folder and its subfolders.
func prepareOut(dir string) error {
	if dir == "" {
		return errors.New("no output folder")
	}
	for _, f := range []string{"summary.json", "report.md", "steps"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return fmt.Errorf("output folder %s already holds a run (%s); choose another with -out", dir, f)
		}
	}
	for _, d := range []string{"", "steps", "components", "charts"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// evaluate checks thresholds, gathers warnings and sets the exit code.
func (r *runner) evaluate(sum *summary.Summary, runs []*stepRun, judged func(*stepRun) bool) {
	failed := false
	for _, st := range runs {
		if !judged(st) {
			continue
		}
		for _, sc := range st.scenarios {
			for _, th := range r.plan.Thresholds {
				if !sc.judges(th) {
					continue
				}
				v, pass, ok := th.Check(sc.values(th))
				tr := summary.ThresholdResult{Threshold: th.Source, Step: st.Name, Scenario: sc.Name, Pass: pass && ok, Measured: "no data"}
				if ok {
					tr.Measured = th.Format(v)
				}
				failed = failed || !tr.Pass
				sum.Thresholds = append(sum.Thresholds, tr)
			}
		}
	}
	var all []sampler.Sample
	for _, st := range runs {
		all = append(all, st.samples...)
		for _, sc := range st.Scenarios {
			if behind := sc.DroppedBehind(); behind > 0 {
				sum.Warnings = append(sum.Warnings, fmt.Sprintf("step %q, scenario %s: %d requests were not sent because the generator fell behind its schedule: their latency is unknown, and a busy machine is the cause", st.Name, sc.Name, behind))
			}
		}
	}
	if sat, why := sampler.GeneratorSaturated(all, "loadlab"); sat {
		sum.Warnings = append(sum.Warnings, why)
	}
	switch {
	case sum.Interrupted:
		sum.ExitCode = ExitInterrupted
	case sum.Aborted != "":
		sum.ExitCode = ExitAborted
	case failed:
		sum.ExitCode = ExitThresholds
	}
}

func (r *runner) progress(format string, args ...any) {
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, format+"\n", args...)
	}
}

func (r *runner) progressStep(st *stepRun) {
	for _, sc := range st.Scenarios {
		r.progress("  %-10s %6d requests  success %6.2f%%  p99 %-10s  max %s", sc.Name, sc.Requests, 100*sc.Success,
			summary.FmtSeconds(sc.Latency.P99.Seconds()), summary.FmtSeconds(sc.Latency.Max.Seconds()))
		if p := st.Model.PredictedScenario(sc.Name); p != nil {
			r.progress("  %-10s %6d predicted success %6.2f%%  p99 %-10s  max %s", "", p.Requests, 100*p.Success,
				summary.FmtSeconds(p.Latencies.P99.Seconds()), summary.FmtSeconds(p.Latencies.Max.Seconds()))
		}
	}
	if st.Aborted != "" {
		r.progress("  step stopped: %s", st.Aborted)
	}
}

// textReport is the vegeta-style text report of a scenario.
func textReport(m *metrics.Metrics) string {
	var b bytes.Buffer
	if err := report.WriteText(&b, m); err != nil {
		return "report error: " + err.Error()
	}
	return b.String()
}

// runSteps runs the plan's steps in order, again when the generator fell
// behind (up to the plan's retries).
func (r *runner) runSteps(ctx context.Context, sum *summary.Summary) []*stepRun {
	var runs []*stepRun
	for _, st := range r.plan.Steps {
		if ctx.Err() != nil {
			sum.Interrupted = true
			break
		}
		var reruns []string
		res, fatal := r.runStep(ctx, st)
		for len(reruns) < r.plan.Retries && fatal == nil {
			why := res.Disturbed()
			if why == "" {
				break
			}
			reruns = append(reruns, why)
			r.progress("  the generator could not keep its schedule (%s): running the step again", why)
			res, fatal = r.runStep(ctx, st)
		}
		res.Reruns = reruns
		runs = append(runs, res)
		sum.Steps = append(sum.Steps, res.StepResult)
		r.progressStep(res)
		if errors.Is(fatal, errInterrupted) {
			sum.Interrupted = true
			break
		}
		if fatal != nil {
			sum.Aborted = fmt.Sprintf("step %d (%s): %v", st.Index+1, st.Name, fatal)
			break
		}
	}
	return runs
}

// runHealth combines the steps' health, each weighted by its wall time;
// nil when no step measured any.
func runHealth(steps []*summary.StepResult) *runblock.Health {
	var parts []runblock.Health
	var weights []time.Duration
	for _, st := range steps {
		if st.Health != nil {
			parts = append(parts, *st.Health)
			weights = append(weights, st.Ended.Sub(st.Started))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	h := runblock.Combine(parts, weights)
	return &h
}
