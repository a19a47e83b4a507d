// Package attackrun is the one way loadlab runs attacks into sinks: one
// attack (`loadlab attack`) or a plan step's scenarios at once (`loadlab
// run`). It reads each attack's targets, refuses bad ones before any
// output is opened, writes each attack's results stream (flushed every
// FlushEvery so followers see fresh data), and hands every result to the
// watchers (the live view, the exporters, the progress line), with the
// attacks' counters summed. It stops the attacks when the error ratio
// crosses a stop rule, and says why they were cut short. The callers only
// turn flags or a plan into a Job.
package attackrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/flow"
	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/runblock/probe"
	"github.com/loadlab/loadlab/internal/sent"
	"github.com/loadlab/loadlab/internal/targets"
)

// FlushEvery is how often the results streams are flushed and the stop
// rule is checked while attacks run (and the progress line is redrawn):
// often enough for a reader following a results file and for a stop
// within a second of the condition.
const FlushEvery = 250 * time.Millisecond

// Job is attacks run at once, and where their results go besides each
// attack's own stream.
type Job struct {
	Attacks []Attack
	// Step names the plan step the watchers label results with ("" for an
	// attack outside a plan).
	Step string
	// Watchers also receive every result and the attacks' counters: the
	// live view, the Prometheus and OTLP exporters, the progress line.
	Watchers []Watcher
	Stop     StopRule // stops the attacks on too many errors; zero: never
}

// Attack is one of a Job's attacks: where its targets come from, how it
// runs and where its results go.
type Attack struct {
	Targets       io.Reader       // the target list (vegeta's http or JSON-lines format)
	TargetOptions targets.Options // format, global headers and body, file name for errors
	Lazy          bool            // read targets while attacking instead of all first
	// Duet, a base URL (targets.CheckDuetBase), sends every target twice
	// in turn: as written and to Duet (see results.DuetLabel); not with
	// Lazy.
	Duet       string
	Options    attack.Options // the attack (Options.Schedule is required)
	StartAfter time.Duration  // wait this long after the others start
	// Output opens where the results stream goes; nil writes none (a
	// warm-up). It is called once every attack's targets and options are
	// known good, so bad input never truncates an existing results file.
	Output func() (io.Writer, error)
	Meta   results.Meta // the stream's header; Attack, Load and Planned are filled in when empty
	// Sinks also receive this attack's results (a step's per-scenario
	// metrics).
	Sinks []results.Sink
	// SecretHeaders name headers (besides those package redact knows carry
	// credentials) whose values the results header never records.
	SecretHeaders []string
	// Flow, when set, makes the attack run the flow's sessions instead of
	// Targets: each request the schedule makes due starts a session (an
	// unpaced attack keeps Options.MaxWorkers users looping it), and
	// Options.MaxWorkers bounds the sessions in flight.
	Flow *flow.Flow
}

// Outcome is how a Job's attacks ended.
type Outcome struct {
	// Errs holds each attack's error, in the Job's order: bad targets or
	// options (a badinput error, nothing opened), an output that could not
	// be opened or written, or the attack's own; nil when it ran.
	Errs []error
	// Stopped is why the attacks were cut short: *ErrorRatioError, or the
	// cause of the context's cancellation; nil when they ran their course.
	Stopped error
	// Stats holds each attack's final counters, in the Job's order (zero
	// for one that did not start).
	Stats []attack.Stats
	// Notes say, per attack in the Job's order, what the user should know
	// of how it ended besides Stopped ("" when nothing): a flow whose
	// data rows ran out.
	Notes []string
	// Machine is what the machine did while the attacks ran, as a probe
	// measured it (package runblock/probe): the generator's CPU, its
	// saturated share, the machine's busy and steal shares; the lag
	// fields are Unknown (each attack's results tell them).
	Machine runblock.Health
}

// Err is the first attack's error that is not nil.
func (o Outcome) Err() error {
	for _, err := range o.Errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// running is an attack ready to run.
type running struct {
	spec   *Attack
	a      *attack.Attacker
	stream *results.StreamSink
	flow   *flow.Runner // with Attack.Flow
}

// Run reads every attack's targets, then runs the attacks at once and
// writes their results. An attack that cannot start is left out; the
// others run.
func Run(ctx context.Context, job Job) Outcome {
	out := Outcome{Errs: make([]error, len(job.Attacks)), Stats: make([]attack.Stats, len(job.Attacks)), Notes: make([]string, len(job.Attacks))}
	runs, stats := prepare(job, out.Errs)
	names := make([]string, len(job.Attacks))
	for i, spec := range job.Attacks {
		names[i] = spec.Options.Name
	}
	var shared []results.Sink // every attack's results go here too
	for _, w := range job.Watchers {
		w.Begin(job.Step, names, stats)
		shared = append(shared, w)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	win := job.Stop.watch(runCtx, cancel)
	if win != nil {
		shared = append(shared, win)
	}

	pr := probe.Start()
	var wg sync.WaitGroup
	for i, rn := range runs {
		if rn == nil {
			continue
		}
		var sinks []results.Sink
		if rn.stream != nil {
			sinks = append(sinks, rn.stream)
		}
		sink := results.Tee(append(append(sinks, rn.spec.Sinks...), shared...)...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.Errs[i] = rn.run(runCtx, sink)
		}()
	}
	wg.Wait()
	out.Machine = pr.Stop()
	for i, rn := range runs {
		if rn != nil {
			if err := rn.close(machineTrailer(out.Machine, rn.a.Stats())); err != nil && out.Errs[i] == nil {
				out.Errs[i] = err
			}
		}
	}
	if win != nil {
		win.stop() // before the cause is read: no stop after the end
	}
	if runCtx.Err() != nil {
		out.Stopped = context.Cause(runCtx)
	}
	for i, rn := range runs {
		if rn != nil {
			out.Stats[i] = rn.a.Stats()
			if rn.flow != nil {
				if ran, rows := rn.flow.RanOut(); ran {
					out.Notes[i] = fmt.Sprintf("flow %s: every one of the data file's %d rows was used once (pick: unique, exhausted: stop): the attack stopped there", rn.spec.Flow.Name, rows)
				}
			}
		}
	}
	return out
}

// prepare makes the job's attacks, then opens their outputs: an attack
// with bad targets opens nothing. It returns them (nil for one that
// cannot start, its error in errs) and their counters summed.
func prepare(job Job, errs []error) ([]*running, func() attack.Stats) {
	runs := make([]*running, len(job.Attacks))
	var counters []func() attack.Stats
	for i := range job.Attacks {
		spec := &job.Attacks[i]
		if spec.Flow != nil {
			runner := spec.Flow.NewRunner(spec.Options.Seed)
			opts := spec.Options
			// A session's next request is due when the answer before it
			// came: answers are read as they arrive, not harvested.
			opts.Journey, opts.Harvest = runner, false
			a, err := attack.New(nil, opts)
			if err != nil {
				errs[i] = err
				continue
			}
			runs[i] = &running{spec: spec, a: a, flow: runner}
			counters = append(counters, a.Stats)
			continue
		}
		a, err := newAttacker(spec)
		if err != nil {
			errs[i] = err
			continue
		}
		runs[i] = &running{spec: spec, a: a}
		counters = append(counters, a.Stats)
	}
	for i, rn := range runs {
		if rn != nil {
			if errs[i] = rn.open(); errs[i] != nil {
				runs[i] = nil
			}
		}
	}
	return runs, sum(counters)
}

// newAttacker reads the attack's targets: all of them first (round
// robin), or as the attack goes with Lazy.
func newAttacker(spec *Attack) (*attack.Attacker, error) {
	dec, err := targets.NewDecoder(spec.Targets, spec.TargetOptions)
	if err != nil {
		return nil, err
	}
	var tr targets.Targeter
	if spec.Lazy {
		if spec.Duet != "" {
			return nil, badinput.Errorf("a duet reads its targets first: it cannot be lazy")
		}
		tr = targets.NewLazy(dec)
	} else {
		ts, err := dec.All()
		if err != nil {
			return nil, err
		}
		if spec.Duet != "" {
			if ts, err = targets.Duet(ts, spec.Duet); err != nil {
				return nil, badinput.Errorf("%v", err)
			}
		}
		if tr, err = targets.NewRoundRobin(ts); err != nil {
			return nil, err
		}
	}
	return attack.New(tr, spec.Options)
}

// open opens the attack's results stream, its header saying what the
// attack plans and what was really sent (package sent).
func (rn *running) open() error {
	spec := rn.spec
	if spec.Output == nil {
		return nil
	}
	meta := spec.Meta
	if meta.Attack == "" {
		meta.Attack = spec.Options.Name
	}
	// A closed loop is named by its users, not by the rate it achieved.
	if meta.Load == (load.Load{}) {
		meta.Load = LoadOf(spec.Options)
	}
	// A results file that holds fewer than planned tells a reader the
	// attack was cut short.
	if spec.Flow != nil {
		meta.Flow = spec.Flow.Name
	}
	// (a flow's schedule plans sessions, and its results are accounted
	// by session: see metrics.Accounting.Sessions)
	if n, ok := spec.Options.Schedule.Total(); ok && spec.Options.Segment == nil && meta.Shard == nil && meta.Planned == 0 {
		meta.Planned = n
	}
	if spec.Duet != "" {
		labels := map[string]string{results.DuetLabel: spec.Duet}
		for k, v := range meta.Labels {
			labels[k] = v
		}
		meta.Labels = labels
	}
	sent.Describe(&meta, rn.a.Seed(), rn.a.Targets(), spec.SecretHeaders...)
	w, err := spec.Output()
	if err != nil {
		return err
	}
	if rn.stream, err = results.NewStreamSink(w, meta, FlushEvery); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// run waits the attack's start and runs it into sink.
func (rn *running) run(ctx context.Context, sink results.Sink) error {
	if rn.started(ctx) {
		return rn.a.Run(ctx, sink.Add)
	}
	return nil
}

// close writes the end of the attack's results stream: its last results
// and the trailer saying what the machine did while it ran.
func (rn *running) close(t *results.Trailer) error {
	if rn.stream == nil {
		return nil
	}
	if err := rn.stream.CloseWith(t); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// WithPacer is h with the pacer of the attack whose counters are st:
// its mode at the end, and when and why it fell back to batching.
func WithPacer(h runblock.Health, st attack.Stats) runblock.Health {
	h.Pacer, h.PacerFallback = st.Pacer, ""
	if st.Fallback != nil {
		h.PacerFallback = st.Fallback.String()
	}
	return h
}

// machineTrailer is an attack's results stream's trailer: the machine's
// health h, with the attack's pacer (and its fallback) from st.
func machineTrailer(h runblock.Health, st attack.Stats) *results.Trailer {
	js, err := json.Marshal(WithPacer(h, st))
	if err != nil {
		return nil
	}
	return &results.Trailer{Health: js}
}

// started waits StartAfter; false when ctx was done first (the attack
// then sends nothing).
func (rn *running) started(ctx context.Context) bool {
	if rn.spec.StartAfter <= 0 {
		return true
	}
	select {
	case <-time.After(rn.spec.StartAfter):
		return true
	case <-ctx.Done():
		return false
	}
}

// LoadOf is the load of an attack with options o: its schedule, and when
// it is a closed loop (no rate: -rate=0 with -max-workers N) the users it
// keeps busy, N or this shard's share of N.
func LoadOf(o attack.Options) load.Load {
	users := 0
	switch {
	case !o.Schedule.Unpaced():
	case o.Segment != nil:
		users = o.Segment.Share(o.MaxWorkers)
	default:
		users = o.MaxWorkers
	}
	return load.Of(o.Schedule.String(), users)
}
