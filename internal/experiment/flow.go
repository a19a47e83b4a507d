package experiment

import (
	"path/filepath"
	"sort"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
)

// countFlow counts a flow scenario's sessions, steps and checks from its
// results stream in the run folder (what `loadlab report` of that stream
// shows), for its thresholds and the write-up. A stream it cannot read
// leaves the scenario without them.
func (r *runner) countFlow(sr *scenarioRun) {
	sc := sr.sc
	if sc == nil || sc.Flow == "" {
		return
	}
	t := tallyFlow(filepath.Join(r.out, sr.Results))
	if t == nil {
		return
	}
	var order []string
	if f, err := r.loadFlow(sc); err == nil {
		for _, s := range f.Requests() {
			order = append(order, s.Name)
		}
	}
	sr.flow = t
	sr.Flow = flowSummary(t, order)
}

// tallyFlow counts the flow results in the stream at path; nil when it
// cannot be read or holds no flow's results (its header says so before
// anything is read).
func tallyFlow(path string) *report.FlowTally {
	src, err := results.Open(path)
	if err != nil {
		return nil
	}
	defer src.Close()
	if src.Meta == nil || src.Meta.Flow == "" {
		return nil
	}
	t := report.NewFlowTally(metrics.Options{})
	if _, _, err := results.ReadAll(src, t, results.KeepBefore); err != nil || !t.Any() {
		return nil
	}
	return t
}

// fillFlows counts the flow figures of the run in dir that summary.json
// lacks (a run written before it kept them), from the results streams;
// the steps in the order they were first seen.
func fillFlows(dir string, sum *summary.Summary) {
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			if sc.Flow == nil && sc.Results != "" {
				if t := tallyFlow(filepath.Join(dir, sc.Results)); t != nil {
					sc.Flow = flowSummary(t, nil)
				}
			}
		}
	}
}

// flowSummary is the tally as summary.json keeps it, the steps in the
// flow file's order (order; steps it does not name after them, as seen).
func flowSummary(t *report.FlowTally, order []string) *summary.Flow {
	s := t.Sessions()
	f := &summary.Flow{SessionDuration: t.SessionDuration(), Sessions: summary.FlowSessions{Started: s.Started, Completed: s.Completed,
		Failed: s.Failed, Interrupted: s.Interrupted, Dropped: s.Dropped, FailedBy: s.FailedBy}}
	rank := map[string]int{}
	for i, name := range order {
		rank[name] = i + 1
	}
	steps := t.Steps()
	sort.SliceStable(steps, func(i, j int) bool {
		ri, rj := rank[steps[i]], rank[steps[j]]
		return ri != 0 && (rj == 0 || ri < rj)
	})
	for _, name := range steps {
		m := t.Step(name)
		f.Steps = append(f.Steps, summary.FlowStep{Name: name, Requests: m.Requests, Success: m.Success, Latency: latencySummary(&m.Latencies)})
	}
	for _, c := range t.Checks() {
		f.Checks = append(f.Checks, summary.FlowCheck{Step: c.Step, Name: c.Name, Passes: c.Passes, Fails: c.Fails})
	}
	return f
}

// judges reports whether th concerns sr: its scenario's, and for a flow's
// figures only a flow scenario's.
func (sr *scenarioRun) judges(th threshold.Threshold) bool {
	return th.Applies(sr.Name) && (!th.Flow() || sr.sc != nil && sr.sc.Flow != "")
}

// values are the figures th is judged on in sr: a flow step's, the
// flow's sessions and checks, or the scenario's.
func (sr *scenarioRun) values(th threshold.Threshold) threshold.Values {
	switch {
	case th.Step != "":
		if sr.flow == nil {
			return (*metrics.Metrics)(nil)
		}
		return sr.flow.Step(th.Step)
	case th.Flow():
		return sr.Flow
	}
	return sr.m
}
