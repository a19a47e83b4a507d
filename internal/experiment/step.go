package experiment

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attackrun"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/component"
	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/live"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/slug"
)

// errAbortStep and friends are the causes a step's context is cancelled with.
var (
	errInterrupted = errors.New("interrupted")
)

type deathError struct{ run summary.ComponentRun }

func (e *deathError) Error() string {
	return fmt.Sprintf("component %s died (%s)", e.run.Name, e.run.Exit)
}

// runStep runs one step and returns its result; fatal is set when the plan
// must stop (a component failed, or ctx was cancelled).
func (r *runner) runStep(ctx context.Context, st *plan.Step) (res *stepRun, fatal error) {
	dirName := filepath.Join("steps", fmt.Sprintf("%02d-%s", st.Index+1, slug.Make(st.Name, "")))
	res = &stepRun{StepResult: &summary.StepResult{Index: st.Index, Name: st.Name, Configuration: r.plan.Configuration(st), Vars: st.Vars,
		Variants: st.Variants, Dir: dirName, Started: time.Now()}}
	defer func() { res.Ended = time.Now() }()
	dir := filepath.Join(r.out, dirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	if r.plan.Search != nil {
		// A capacity search runs as many probes as it needs: a count "of"
		// the plan's template steps would read "step 10/2".
		r.progress("step %d of the capacity search: %s", st.Index+1, st.Name)
	} else {
		r.progress("step %d/%d: %s", st.Index+1, len(r.plan.Steps), st.Name)
	}
	res.Model = r.predict(st)
	// The live view names the step while its components start, and its
	// end once they are up.
	liveStep := r.liveStep(st, res.Configuration)
	if lv := r.opts.Live; lv != nil {
		lv.SetStep(liveStep)
	}

	runs, err := r.fleet.prepare(ctx, st)
	res.Components = runs
	if err != nil {
		if ctx.Err() != nil {
			return res, errInterrupted
		}
		res.Aborted = "a component failed to start: " + err.Error()
		for _, run := range runs {
			if run.StartError != "" {
				res.Deaths = append(res.Deaths, r.withLastOutput(run))
			}
		}
		return res, errors.New(res.Aborted)
	}
	if r.calibrate(ctx, st) {
		res.Model = r.predict(st)
	}

	stepCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Watch for components dying while the step runs.
	var watch sync.WaitGroup
	stepDone := make(chan struct{})
	for _, rn := range r.fleet.running {
		rn := rn
		watch.Add(1)
		go func() {
			defer watch.Done()
			select {
			case <-rn.proc.Done():
				if rn.proc.Died() {
					cancel(&deathError{run: r.deathRun(rn)})
				}
			case <-stepDone:
			}
		}()
	}
	defer func() { close(stepDone); watch.Wait() }()

	// Sample from the first warm-up request to the end of the cool-down.
	scfg := r.samplerConfig()
	if lv := r.opts.Live; lv != nil {
		scfg.OnSample = func(x sampler.Sample) { lv.SetMetric(x.Series, x.Unit, x.Value) }
	}
	smp := sampler.New(scfg)
	sctx, stopSampling := context.WithCancel(context.WithoutCancel(ctx))
	var sampling sync.WaitGroup
	sampling.Add(1)
	go func() { defer sampling.Done(); smp.Run(sctx) }()

	if lv := r.opts.Live; lv != nil {
		var longest time.Duration
		for _, sc := range st.Scenarios {
			longest = max(longest, sc.StartAfter+sc.Duration)
		}
		liveStep.Ends = time.Now().Add(r.plan.Warmup + longest)
		lv.SetStep(liveStep)
	}
	if r.plan.Warmup > 0 {
		res.WarmupResults = r.warmup(stepCtx, st)
	}
	var stopped error // why the step's attacks were cut short
	if stepCtx.Err() == nil {
		stopped = r.attackAll(stepCtx, st, dir, res)
	}
	cause := context.Cause(stepCtx)
	if cause == nil {
		cause = stopped
	}
	if cause == nil {
		// A component may have died just as the attacks ended.
		for _, rn := range r.fleet.running {
			if rn.proc.Died() {
				cause = &deathError{run: r.deathRun(rn)}
				break
			}
		}
	}
	if cause == nil && r.plan.Cooldown > 0 {
		select {
		case <-time.After(r.plan.Cooldown):
		case <-ctx.Done():
		}
	}
	stopSampling()
	sampling.Wait()
	res.samples = smp.Samples()
	res.Peaks, res.Means = peaks(res.samples)

	var de *deathError
	var er *attackrun.ErrorRatioError
	switch {
	case errors.As(cause, &de):
		res.Deaths = append(res.Deaths, de.run)
		res.Aborted = de.Error()
		if !r.plan.Stop.ContinueOnFailed {
			fatal = errors.New(res.Aborted)
		}
	case errors.As(cause, &er):
		res.Aborted = er.Error()
	case ctx.Err() != nil:
		res.Aborted = "interrupted"
		fatal = errInterrupted
	}
	return res, fatal
}

// deathRun describes a component that died, with its last output.
func (r *runner) deathRun(rn *running) summary.ComponentRun {
	run := summary.ComponentRun{Name: rn.c.Name, Kind: rn.c.Kind, Variant: rn.variant, CommandLine: component.CommandLine(rn.argv),
		PID: rn.proc.PID, URL: rn.proc.URL, Died: true, Exit: rn.proc.ExitText(), LastOutput: rn.proc.Tail()}
	return run
}

func (r *runner) withLastOutput(run summary.ComponentRun) summary.ComponentRun {
	if run.Log == "" {
		return run
	}
	f, err := os.Open(filepath.Join(r.out, run.Log))
	if err != nil {
		return run
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > component.TailLines {
			lines = lines[1:]
		}
	}
	run.LastOutput = lines
	run.Died = true
	return run
}

func (r *runner) samplerConfig() sampler.Config {
	cfg := sampler.Config{Interval: r.plan.Samplers.Interval}
	urls := r.fleet.urls()
	for _, m := range r.plan.Samplers.Metrics {
		src := sampler.Source{Name: m.From, URL: m.From}
		if u, ok := urls[m.From]; ok {
			src.URL = u + m.Path
		}
		for _, s := range m.Series {
			sel, _ := plan.ParseSelector(s) // validated with the plan
			src.Selectors = append(src.Selectors, sel)
		}
		cfg.Sources = append(cfg.Sources, src)
	}
	if len(r.plan.Samplers.Metrics) == 0 {
		// By default, the proxy's pool and breaker series: what explains its latency.
		for _, rn := range r.fleet.running {
			if rn.c.Kind == plan.KindProxy && rn.c.MetricsPath != "" {
				src := sampler.Source{Name: rn.c.Name, URL: rn.proc.URL + rn.c.MetricsPath}
				for _, s := range defaultProxySeries {
					sel, _ := plan.ParseSelector(s)
					src.Selectors = append(src.Selectors, sel)
				}
				cfg.Sources = append(cfg.Sources, src)
			}
		}
	}
	for _, rn := range r.fleet.running {
		cfg.Procs = append(cfg.Procs, sampler.Proc{Name: rn.c.Name, PID: rn.proc.PID})
	}
	for _, pid := range r.plan.Samplers.PIDs {
		cfg.Procs = append(cfg.Procs, sampler.Proc{Name: fmt.Sprintf("pid%d", pid), PID: pid})
	}
	return cfg
}

// defaultProxySeries are sampled from proxies when the plan names none.
var defaultProxySeries = []string{
	"loadlab_proxy_pool_workers_in_use",
	"loadlab_proxy_pool_overflow_workers_in_use",
	"loadlab_proxy_pool_waiting",
	"loadlab_proxy_pool_checkout_timeouts_total",
	"loadlab_proxy_responses_total",
	"loadlab_proxy_breaker_throughput_percent",
	"loadlab_proxy_upstream_connections_open",
}

// peaks returns the highest and the mean value of every series.
func peaks(ss []sampler.Sample) (map[string]float64, map[string]float64) {
	pk, sum, n := map[string]float64{}, map[string]float64{}, map[string]int{}
	for _, s := range ss {
		if v, ok := pk[s.Series]; !ok || s.Value > v {
			pk[s.Series] = s.Value
		}
		sum[s.Series] += s.Value
		n[s.Series]++
	}
	for k := range sum {
		sum[k] /= float64(n[k])
	}
	return pk, sum
}

// warmup runs every scenario for the warm-up time and discards the results.
func (r *runner) warmup(ctx context.Context, st *plan.Step) uint64 {
	var n atomic.Uint64
	count := results.SinkFunc(func(*results.Result) { n.Add(1) })
	var job attackrun.Job
	for _, sc := range st.Scenarios {
		text, err := r.targetText(sc)
		if err != nil {
			continue
		}
		a, err := r.scenarioAttack(sc, text, r.plan.Warmup)
		if err != nil {
			continue
		}
		a.StartAfter = 0 // every scenario warms up from the start
		a.Sinks = []results.Sink{count}
		job.Attacks = append(job.Attacks, a)
	}
	attackrun.Run(ctx, job)
	return n.Load()
}

// attackAll runs the step's scenarios concurrently, each into its results
// stream and metrics (the charts are drawn from the streams afterwards),
// and returns why they were cut short (nil: they ran their course).
func (r *runner) attackAll(ctx context.Context, st *plan.Step, dir string, res *stepRun) error {
	job := attackrun.Job{Step: st.Name, Watchers: r.opts.Exporters,
		Stop: attackrun.StopRule{Ratio: r.plan.Stop.ErrorRatio, Window: r.plan.Stop.Window, MinRequests: r.plan.Stop.MinRequests}}
	if lv := r.opts.Live; lv != nil {
		job.Watchers = append([]attackrun.Watcher{lv}, job.Watchers...)
	}
	var ran []*scenarioRun // the scenario of each of the job's attacks
	var files []*os.File
	for _, sc := range st.Scenarios {
		sr := &scenarioRun{ScenarioResult: &summary.ScenarioResult{Name: sc.Name, Rate: sc.Rate.Text, Users: sc.Users(), Duration: sc.Duration.String(),
			Results: filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir), sc.Name+".lll"),
			Report:  filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir), sc.Name+".txt")}, m: metrics.New(), lag: &runblock.LagMeter{}, sc: sc}
		res.add(sr)
		text, err := r.targetText(sc)
		if err != nil {
			sr.RunError = err.Error()
			continue
		}
		sr.Target = firstTarget(text)
		a, err := r.scenarioAttack(sc, text, sc.Duration)
		if err != nil {
			sr.RunError = err.Error()
			continue
		}
		path := filepath.Join(r.out, sr.Results)
		a.Output = func() (io.Writer, error) {
			f, err := os.Create(path)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
			return f, nil
		}
		a.Meta = results.Meta{Generator: "loadlab " + r.opts.Version, Command: append([]string{"loadlab", "run"}, redact.Args(r.plan.RunArgs())...),
			Labels: map[string]string{"plan": r.plan.Name, "step": st.Name, "configuration": res.Configuration}}
		a.Sinks = []results.Sink{sr.m, sr.lag}
		job.Attacks = append(job.Attacks, a)
		ran = append(ran, sr)
	}
	out := attackrun.Run(ctx, job)
	for _, f := range files {
		f.Close()
	}
	for i, err := range out.Errs {
		switch {
		case err == nil:
		case badinput.Is(err): // its targets
			ran[i].RunError = fmt.Sprintf("scenario %s: %v", ran[i].Name, err)
		default:
			ran[i].RunError = err.Error()
		}
	}
	stats := map[*scenarioRun]attack.Stats{} // each attack's pacer
	for i, sr := range ran {
		stats[sr] = out.Stats[i]
	}
	var parts []runblock.Health
	for _, sr := range res.scenarios {
		r.finishScenario(sr)
		r.countFlow(sr)
		h := attackrun.WithPacer(sr.lag.Health().WithMachine(out.Machine), stats[sr])
		sr.Health = &h
		parts = append(parts, h)
	}
	if len(parts) > 0 {
		h := runblock.Combine(parts, nil)
		res.Health = &h
	}
	if len(res.Scenarios) > 0 {
		for _, rn := range r.fleet.running {
			if rn.c.Kind == plan.KindProxy && rn.config != "" {
				if res.Pool = findings.PoolLimits(rn.config, res.Scenarios[0].Target); res.Pool != nil {
					break
				}
			}
		}
	}
	return out.Stopped
}

// finishScenario computes the figures and writes the text report.
func (r *runner) finishScenario(sr *scenarioRun) {
	m := sr.m
	m.Close()
	sr.Requests, sr.RateActual, sr.Throughput, sr.Success = m.Requests, m.Rate, m.Throughput, m.Success
	sr.Latency, sr.SendLatency = latencySummary(&m.Latencies), latencySummary(&m.OtherLatencies)
	sr.StatusCodes = map[string]uint64{}
	for code, n := range m.StatusCodes {
		sr.StatusCodes[fmt.Sprint(code)] = n
	}
	for _, e := range m.Errors {
		sr.Errors = append(sr.Errors, e.Text)
		if e.Text == attack.ErrDropped {
			sr.DroppedAtMaxWorkers = e.Count
		}
	}
	sort.Strings(sr.Errors)
	sr.Dropped, sr.Late, sr.MaxLag, sr.LagP99 = m.Dropped, m.Lag.Late, m.Lag.Max.Seconds(), m.Lag.P99.Seconds()
	text := textReport(m)
	if sr.RunError != "" {
		text += "Run error: " + sr.RunError + "\n"
	}
	os.WriteFile(filepath.Join(r.out, sr.Report), []byte(text), 0o644)
}

// liveStep describes st for the live view: its name, place in the plan,
// the rate of each scenario and its configuration.
func (r *runner) liveStep(st *plan.Step, configuration string) live.Step {
	ls := live.Step{Name: st.Name, Index: st.Index + 1, Of: len(r.plan.Steps), Configuration: configuration}
	if r.plan.Search != nil {
		ls.Of = 0 // a search's probes are not counted out of the template steps
	}
	for _, sc := range st.Scenarios {
		if ls.Rate != "" {
			ls.Rate += " + "
		}
		ls.Rate += sc.Name + " " + sc.Load().String()
	}
	return ls
}
