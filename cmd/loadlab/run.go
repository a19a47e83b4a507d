package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/blackbox"
	"github.com/loadlab/loadlab/internal/experiment"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/writeup"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/slug"
)

func init() {
	register(command{
		name:    "run",
		summary: "run an experiment plan: components, steps, samplers, thresholds, report",
		order:   80,
		run:     runRun,
	})
}

const runExamples = `  # Replay the search-flood incident at laptop scale; writes ./loadlab-run-<name>-<time>/
  loadlab run examples/000-incident-replay/plan.yaml

  # Override plan variables (repeatable): a longer run at one rate of the matrix
  loadlab run -set duration=300s -set rate=1000 plan.yaml

  # Choose the output folder, and only check the plan (nothing is started)
  loadlab run -out /tmp/replay examples/000-incident-replay/plan.yaml
  loadlab run -check examples/001-step-sweep/plan.yaml

  # Every cell three times, interleaved (ABCABCABC), to compare with
  # the variance between runs: loadlab compare reads each cell's replicates as one side
  loadlab run -repeat 3 -out ab plan.yaml && loadlab compare ab/

  # In CI: the exit code is 1 when a threshold is crossed, 3 when a component failed
  loadlab run -quiet plan.yaml || echo "performance gate failed"

  # Rebuild the findings and the report of an earlier run from its folder
  # (summary.json, samples, results streams); nothing is run
  loadlab run -rewrite loadlab-run-incident-replay-20260101-120000

The plan schema is documented in docs/experiments.md. Ctrl-C stops the run and
still writes the report for the steps that ran.`

func runRun(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "[flags] plan.yaml", runExamples, stderr)
	out := fs.String("out", "", "output `folder` (default ./loadlab-run-<plan name>-<timestamp>); must not hold a previous run")
	check := fs.Bool("check", false, "validate the plan and list its steps, start nothing")
	quiet := fs.Bool("quiet", false, "no progress lines, only the final summary")
	rewrite := fs.String("rewrite", "", "rebuild the findings and report (report.md, report.html, charts) of the run in `folder` from its data, running nothing")
	ui := fs.String("ui", "", "serve a live view of the run at `host:port` (e.g. 127.0.0.1:8089): the step in progress, rate, latency, status codes, in flight, lag and the sampled server metrics per second")
	var export exportFlags
	export.register(fs, "run")
	uiToken := fs.String("ui-token", "", "the `token` the live view requires; default none on loopback, generated elsewhere")
	var arch archiveFlags
	arch.register(fs, "run folder")
	wake := wakeFlag(fs)
	fitStep := fs.Duration("fit-step", 2*time.Second, "the `length` of each calibration probe of a scenario with calibrate: true (longer narrows the fit)")
	repeat := fs.Int("repeat", 0, "run every step (every cell of the steps or the matrix) `n` times, interleaved (all steps, then all again), so drift falls on every cell; each step records its replicate in the variable repeat; loadlab compare reads the replicates of a cell as one side; the plan key repeat: does the same (not both)")
	var set overrideFlag
	fs.Var(&set, "set", "set plan variable `NAME=VALUE` (repeatable): one under vars:, a matrix axis (then run at that value only) or a step's variable")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := export.check(); err != nil {
		return err
	}
	if err := checkWake(*wake); err != nil {
		return err
	}
	if *fitStep < 100*time.Millisecond || *fitStep > time.Minute {
		return badinput.Field("-fit-step", "want 100ms to 1m, got %v", *fitStep)
	}
	if *rewrite != "" {
		if fs.NArg() > 0 {
			return badinput.Field("-rewrite", "takes no plan file (got %q): the run folder holds what is needed", fs.Arg(0))
		}
		res, err := experiment.Rewrite(*rewrite, nil)
		if err != nil {
			return err
		}
		printOutcome(stdout, res)
		return nil
	}
	if fs.NArg() != 1 {
		return badinput.Field("", "want exactly one plan file, got %d arguments", fs.NArg())
	}
	p, err := plan.Load(fs.Arg(0), set...)
	if err != nil {
		return err
	}
	if flagSet(fs, "repeat") {
		if p.Repeats > 1 {
			return badinput.Field("-repeat", "the plan already repeats its steps (repeat: %d); give one or the other", p.Repeats)
		}
		if err := p.Repeat(*repeat); err != nil {
			return badinput.Field("-repeat", "%v", err)
		}
	}
	// what the components would refuse at start is refused now, with
	// -check too, before any folder is made
	if err := p.CheckProxyConfigs(); err != nil {
		return err
	}
	if *check {
		fmt.Fprintf(stdout, "plan %s is valid: %s, %s\n", p.Name, count(len(p.Components), "component"), count(len(p.Steps), "step"))
		for _, st := range p.Steps {
			names := make([]string, len(st.Scenarios))
			for i, sc := range st.Scenarios {
				names[i] = sc.Name
			}
			fmt.Fprintf(stdout, "  step %d: %s (%s: %s)\n", st.Index+1, st.Name, count(len(st.Scenarios), "scenario"), strings.Join(names, ", "))
		}
		for _, f := range p.ForeignUpstreams() {
			fmt.Fprintln(stdout, "warning: "+f.String())
		}
		return nil
	}
	if err := arch.check(ctx); err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = fmt.Sprintf("loadlab-run-%s-%s", slug.Make(p.Name, "plan"), time.Now().Format("20060102-150405"))
	}
	var log io.Writer = stderr
	if *quiet {
		log = nil
	}
	lv, err := startLive(*ui, *uiToken, stderr)
	if err != nil {
		return err
	}
	ex, err := export.start(ctx, stderr)
	if err != nil {
		if lv != nil {
			lv.Close(0)
		}
		return err
	}
	defer ex.close(stderr)
	costs, costsSaid, err := modelCosts(ctx, *wake)
	if err != nil {
		return err
	}
	if log != nil {
		fmt.Fprintf(log, "model: %s\n", costsSaid)
	}
	res, err := experiment.Run(ctx, experiment.Options{Plan: p, Out: dir, Version: version(), Log: log, Live: lv, Exporters: ex.list(),
		Model: &blackbox.Planner{Planner: model.Planner{Seed: 1, Costs: costs, CostsSaid: costsSaid}, Step: *fitStep, Log: log}})
	if lv != nil {
		lv.Close(liveLinger)
	}
	if err != nil {
		if res == nil {
			return err
		}
		fmt.Fprintf(stderr, "loadlab run: writing the report: %v\n", err)
	}
	printOutcome(stdout, res)
	var runErr error
	if res.ExitCode != 0 {
		runErr = exitError{code: res.ExitCode, msg: exitMessage(res)}
	}
	return arch.add(ctx, dir, stdout, stderr, runErr)
}

// printOutcome prints the findings and where the report is.
func printOutcome(w io.Writer, res *experiment.Outcome) {
	for _, f := range writeup.Said(res.Summary.Findings) {
		fmt.Fprintln(w, "- "+f)
	}
	for _, wn := range res.Summary.Warnings {
		fmt.Fprintln(w, "warning: "+wn)
	}
	abs, err := filepath.Abs(res.Report)
	if err != nil {
		abs = res.Report
	}
	fmt.Fprintf(w, "report: %s\n", abs)
}

func exitMessage(res *experiment.Outcome) string {
	s := res.Summary
	switch res.ExitCode {
	case experiment.ExitInterrupted:
		return "interrupted; the report covers the steps that ran"
	case experiment.ExitAborted:
		return "stopped early: " + s.Aborted
	}
	return thresholdMessage(s.Thresholds)
}

// thresholdMessage is the last line of a run whose thresholds failed: how
// many checks, which thresholds (each with the steps where it failed, the
// first few named) and what exit code 1 means, so a CI log says it all.
func thresholdMessage(ths []summary.ThresholdResult) string {
	type failure struct {
		steps []string
		n     int
	}
	var order []string
	byTh := map[string]*failure{}
	failed := 0
	for _, t := range ths {
		if t.Pass {
			continue
		}
		failed++
		f := byTh[t.Threshold]
		if f == nil {
			f = &failure{}
			byTh[t.Threshold] = f
			order = append(order, t.Threshold)
		}
		f.n++
		where := t.Step
		if t.Scenario != "" {
			where += " " + t.Scenario
		}
		if len(f.steps) < 2 {
			f.steps = append(f.steps, fmt.Sprintf("%s: %s", where, t.Measured))
		}
	}
	parts := make([]string, len(order))
	for i, th := range order {
		f := byTh[th]
		more := ""
		if f.n > len(f.steps) {
			more = fmt.Sprintf(" and %d more", f.n-len(f.steps))
		}
		parts[i] = fmt.Sprintf("%s (%s%s)", th, strings.Join(f.steps, ", "), more)
	}
	return fmt.Sprintf("%d of %d threshold checks failed: %s. Exit code 1 means a threshold was crossed (setup errors exit 2); see the report's Thresholds section",
		failed, len(ths), strings.Join(parts, "; "))
}

// overrideFlag collects -set NAME=VALUE flags.
type overrideFlag []plan.Override

func (f *overrideFlag) String() string {
	parts := make([]string, len(*f))
	for i, o := range *f {
		parts[i] = o.Name + "=" + o.Value
	}
	return strings.Join(parts, " ")
}

func (f *overrideFlag) Set(s string) error {
	o, err := plan.ParseOverride(s)
	if err != nil {
		return err
	}
	*f = append(*f, o)
	return nil
}

// count writes n with the noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
