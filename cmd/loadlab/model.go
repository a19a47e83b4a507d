package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/blackbox"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/targets"
)

func init() {
	register(command{
		name:    "model",
		summary: "predict a plan's results (or one attack's) in virtual time, and search the knee",
		order:   85,
		run:     runModel,
	})
}

const modelExamples = `  # What will the pool staircase measure? Every step, in well under a second
  loadlab model examples/003-pool-staircase-full-scale/plan.yaml

  # The search-flood incident: the highest flood rate each pool holds (the
  # plan's thresholds, or success >= 99% when it has none; and, unless a
  # threshold bounds latency or -knee-success-only is given, p99 within 10%
  # of the flood's p99 at 1 req/s, so that a growing queue is not "held")
  loadlab model -knee examples/000-incident-replay/plan.yaml

  # A quick question without a plan: this proxy and origin at 30 requests/s
  loadlab model -config proxy.yaml -recipe origin.json -rate 30/s -duration 60s -path /search

  # For scripts: one JSON object per step and scenario (latencies in ns)
  loadlab model -type json plan.yaml | jq '.[] | {step_name, success}'

  # A system loadlab did not write: calibrate it once (the worst case in
  # requests and time is announced first), keep the fit, predict from it later
  loadlab model -fit -target 'GET http://127.0.0.1:8080/page' -fit-save fit.json -rate 200/s
  loadlab model -fit -fit-load fit.json -rate 100,200,300 -type json | jq '.[] | {success, interval, capacity: .fit.capacity_ci}'

  # The same predictions on every machine: the reference machine's costs
  # (by default, this machine's, measured once in under a second and cached)
  loadlab model -wake reference plan.yaml

The model simulates the loadlab proxy (pools, both managers, timeouts,
breakers, cache and fallbacks) in front of the loadlab origin, in virtual
time, with the same pool, breaker and cache code the proxy runs. It does not
model CPU: a measurement that leaves the prediction points at a machine, a
proxy or a generator short of it. Where a configured bound meets a latency
within a hair (an origin answering in exactly the request timeout), the real
system decides by timer wake-ups: the output says the prediction is fragile,
why, and how to make it stable. Each prediction says which of the pool
manager's costs it assumed (this machine's or a reference machine's). See
docs/model.md.`

func runModel(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("model", "[flags] [plan.yaml]", modelExamples, stderr)
	typ := fs.String("type", "text", "output `format`: text or json")
	knee := fs.Bool("knee", false, "search the knee: the highest rate of the flood scenario that meets the thresholds, per configuration")
	kneeScenario := fs.String("knee-scenario", "", "`scenario` whose rate the knee search varies (default the fastest)")
	precision := fs.Float64("precision", 0.02, "knee search: relative `width` of the answer")
	successOnly := fs.Bool("knee-success-only", false, "knee search: judge the thresholds as given; by default, when none bounds the flood's latency, a rate holds only while its p99 stays within 10% of its p99 at 1 req/s (a queue building up breaks it, whatever the step's duration)")
	seed := fs.Uint64("seed", 1, "seed of the origin's random draws and the targets' templates")
	var set overrideFlag
	fs.Var(&set, "set", "set plan variable `NAME=VALUE` (repeatable), as loadlab run does")
	var ths listFlag
	fs.Var(&ths, "threshold", "a `threshold` such as \"p99 < 1s\" for the knee (repeatable; added to the plan's)")
	cfgFile := fs.String("config", "", "without a plan: the proxy's config `file` (none: the attack goes to the origin)")
	recipeFile := fs.String("recipe", "", "without a plan: the origin's recipe `file`")
	rate := fs.String("rate", "50/s", "without a plan: the attack's `rate` (as loadlab attack -rate, ramps too); a comma-separated list (160,180,300) predicts one attack per rate")
	duration := fs.Duration("duration", 60*time.Second, "without a plan: the attack's `duration` (each, with a list of rates)")
	stepList := fs.String("steps", "", "without a plan: one attack stepping through these comma-separated `rates`, each held -step-duration (as loadlab attack -steps)")
	stepDuration := fs.Duration("step-duration", 0, "`duration` of each -steps step")
	path := fs.String("path", "/", "without a plan: the request `path` (and query); {{...}} templates as in targets")
	timeout := fs.Duration("timeout", attack.DefaultOptions().Timeout, "without a plan: the client's `timeout` per request")
	fit := fs.Bool("fit", false, "predict a system loadlab did not write: calibrate the live -target with short, bounded attacks, fit a queue\n"+
		"(servers, service time, wait and refusal status, contention: the USL's σ and κ), then predict -rate (or -steps) through it")
	target := fs.String("target", "", "with -fit: the request `line` to calibrate and predict, e.g. 'GET http://127.0.0.1:8080/page'")
	fitStep := fs.Duration("fit-step", 2*time.Second, "with -fit: the `length` of each calibration probe (longer narrows the fit)")
	fitMaxRate := fs.Float64("fit-max-rate", 5000, "with -fit: the highest `rate` (req/s) the calibration may try")
	workers := fs.Int("workers", 0, "without a plan, with -rate=0: a closed loop of `N` users, each sending its next request the moment the previous is answered (loadlab attack -rate=0 -max-workers N): predicts the throughput and latency at that concurrency")
	fitBudget := fs.Uint64("fit-budget", 40000, "with -fit: the most `requests` the calibration may send (announced before it starts, with its longest duration, and never exceeded)")
	fitSave := fs.String("fit-save", "", "with -fit: save the calibration to `file` (versioned JSON) for -fit-load")
	fitLoad := fs.String("fit-load", "", "with -fit: reuse the calibration saved in `file` instead of calibrating the target again")
	wake := wakeFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkWake(*wake); err != nil {
		return err
	}
	// The pool manager's costs, measured (or read from the cache) once the
	// input is known good, right before the first prediction.
	pl := model.Planner{Seed: *seed}
	costsKnown := false
	costs := func() error {
		if costsKnown {
			return nil
		}
		costsKnown = true
		var err error
		pl.Costs, pl.CostsSaid, err = modelCosts(ctx, *wake)
		return err
	}
	if *timeout < 0 {
		return badinput.Field("-timeout", "want 0 (none) or a positive duration, got %v", *timeout)
	}
	if *typ != "text" && *typ != "json" {
		return badinput.Field("-type", "want text or json, got %q", *typ)
	}
	if *precision <= 0 || *precision >= 1 {
		return badinput.Field("-precision", "want a fraction between 0 and 1 such as 0.02, got %v", *precision)
	}
	var extra []threshold.Threshold
	for _, s := range ths {
		t, err := threshold.Parse(s)
		if err != nil {
			return badinput.Field("-threshold", "%v", err)
		}
		extra = append(extra, t)
	}
	if *workers < 0 || *workers > 1_000_000 {
		return badinput.Field("-workers", "want 1 to 1000000 users, got %d", *workers)
	}
	if *workers > 0 && *knee {
		return badinput.Field("-workers", "a closed loop has no rate to search: give -knee or -workers, not both")
	}
	ko := model.KneeOptions{Precision: *precision, SuccessOnly: *successOnly}
	attacks := model.Attacks{Workers: *workers, Thresholds: extra}
	if *knee {
		attacks.Knee = &ko
	}
	var steps []model.StepPrediction
	var knees []model.Knee
	var sys model.AttackSystem // without a plan: what the attacks are predicted through
	switch {
	case fs.NArg() == 1:
		if *cfgFile != "" || *recipeFile != "" {
			return badinput.Field("-config", "give a plan or -config/-recipe, not both")
		}
		p, err := plan.Load(fs.Arg(0), set...)
		if err != nil {
			return err
		}
		p.Thresholds = append(p.Thresholds, extra...)
		if err := costs(); err != nil {
			return err
		}
		steps = pl.Plan(p)
		if allFailed(steps) {
			return badinput.Errorf("%s: nothing to model: %v", p.File, steps[0].Err)
		}
		if *knee {
			if knees, err = pl.Knees(p, *kneeScenario, ko); err != nil {
				return err
			}
		}
	case *fit:
		if fs.NArg() > 0 || *cfgFile != "" || *recipeFile != "" {
			return badinput.Field("-fit", "calibrates a live -target: give no plan, -config or -recipe with it")
		}
		calib := blackbox.Options{Target: *target, Timeout: *timeout, Step: *fitStep, MaxRate: *fitMaxRate, Budget: *fitBudget, Log: stderr}
		if err := calib.Validate(); err != nil {
			return err
		}
		scheds, err := attackSchedules(fs, *rate, *stepList, *duration, *stepDuration, *workers)
		if err != nil {
			return err
		}
		f, err := blackbox.LoadOrCalibrate(ctx, *fitLoad, *fitSave, calib)
		if err != nil {
			return err
		}
		w := stdout
		if *typ == "json" {
			w = stderr // stdout is the JSON array scripts read
		}
		blackbox.WriteFit(w, f)
		sys, attacks.Schedules, attacks.Target = f.System(*timeout, *seed), scheds, f.Target
	case fs.NArg() == 0:
		if *recipeFile == "" {
			return badinput.Field("-recipe", "give a plan file, or at least -recipe (and -config for a proxy in front)")
		}
		scheds, err := attackSchedules(fs, *rate, *stepList, *duration, *stepDuration, *workers)
		if err != nil {
			return err
		}
		ts, err := pathTargets(*path)
		if err != nil {
			return err
		}
		pg := model.Playground{Config: *cfgFile, Recipe: *recipeFile, Targets: ts, Timeout: *timeout, Seed: *seed,
			Costs: func() (model.Costs, string, error) { err := costs(); return pl.Costs, pl.CostsSaid, err }}
		sys, attacks.Schedules, attacks.Target = pg, scheds, *path
	default:
		return badinput.Field("", "want one plan file, or none with -recipe; got %d arguments", fs.NArg())
	}
	if sys != nil {
		var err error
		steps, knees, err = model.PredictAttacks(sys, attacks)
		var kerr *model.KneeError
		switch {
		case errors.As(err, &kerr):
			return badinput.Field("-knee", "%v", kerr.Err)
		case err != nil:
			return err
		}
	}
	if *typ == "json" {
		return model.WriteJSON(stdout, steps, knees)
	}
	model.WriteText(stdout, steps, knees)
	return nil
}

// checkWorkers: -workers closes the loop of an unpaced attack (-rate=0)
// and of it only.
func checkWorkers(scheds []*schedule.Schedule, workers int) error {
	for _, sch := range scheds {
		switch {
		case sch.Unpaced() && sch.Duration <= 0:
			return badinput.Field("-duration", "a closed loop (-rate=0 -workers N) needs a positive duration")
		case sch.Unpaced() && workers == 0:
			return badinput.Field("-workers", "-rate=0 sends each user's next request when the previous is answered: give the number of users, e.g. -workers 16")
		case !sch.Unpaced() && workers > 0:
			return badinput.Field("-workers", "a closed loop of users needs -rate=0 (got -rate %s)", sch)
		}
	}
	return nil
}

func allFailed(steps []model.StepPrediction) bool {
	for _, s := range steps {
		if s.Err == nil {
			return false
		}
	}
	return len(steps) > 0
}

// quickSchedules reads -rate (one rate or ramp, or a comma-separated list
// of rates: one attack each) or -steps (one attack stepping through the
// rates) into the schedules to predict.
func quickSchedules(rate, steps string, d, stepDuration time.Duration, rateGiven bool) ([]*schedule.Schedule, error) {
	if steps != "" {
		if rateGiven {
			return nil, badinput.Field("-steps", "give -rate (one attack per rate) or -steps (one attack stepping through them), not both")
		}
		sch, err := schedule.ParseSteps(steps, stepDuration, d)
		if err != nil {
			return nil, err
		}
		return []*schedule.Schedule{sch}, nil
	}
	var out []*schedule.Schedule
	for _, r := range strings.Split(rate, ",") {
		sch, err := schedule.Parse(strings.TrimSpace(r), d)
		if err != nil {
			return nil, err
		}
		out = append(out, sch)
	}
	return out, nil
}

// attackSchedules reads -rate or -steps (-duration's default does not cut
// the steps short) and checks -workers against them.
func attackSchedules(fs *flag.FlagSet, rate, steps string, d, stepDuration time.Duration, workers int) ([]*schedule.Schedule, error) {
	if steps != "" && !flagSet(fs, "duration") {
		d = 0
	}
	scheds, err := quickSchedules(rate, steps, d, stepDuration, flagSet(fs, "rate"))
	if err != nil {
		return nil, err
	}
	return scheds, checkWorkers(scheds, workers)
}

// pathTargets reads -path into the attack's targets.
func pathTargets(path string) ([]*targets.Target, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, badinput.Field("-path", "want a path starting with /, got %q", path)
	}
	ts, err := targets.ReadAll(strings.NewReader(http.MethodGet+" http://loadlab.model.invalid"+path), targets.Options{})
	if err != nil {
		return nil, badinput.Field("-path", "%v", err)
	}
	return ts, nil
}
