package report

import (
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// FlowTally counts a flow's figures from its results, as the report's
// flow block does, for a caller that wants them as data (a run's
// summary and thresholds): a results.Sink.
type FlowTally struct{ f *flowStats }

// NewFlowTally returns an empty tally whose step figures are measured
// with o (its basis: latency from when each request was due by default).
func NewFlowTally(o metrics.Options) *FlowTally { return &FlowTally{newFlowStats(o, true)} }

// Add counts r (results.Sink).
func (t *FlowTally) Add(r *results.Result) { t.f.Add(r) }

// Any reports whether a result was a flow's.
func (t *FlowTally) Any() bool { return t.f.any }

// Sessions are the sessions' outcomes.
func (t *FlowTally) Sessions() FlowSessions { return t.f.sessions() }

// SessionDuration is the started sessions' duration percentiles.
func (t *FlowTally) SessionDuration() metrics.LatencySummary {
	l := t.f.durations()
	s := l.LatencySummary
	s.Min = l.Min
	return s
}

// FlowCheck is one check of one step: how often it passed and failed.
type FlowCheck struct {
	Step, Name    string
	Passes, Fails uint64
}

// Checks are every step's checks, in the order they were first seen.
func (t *FlowTally) Checks() []FlowCheck {
	out := make([]FlowCheck, 0, len(t.f.corder))
	for _, k := range t.f.corder {
		c := t.f.checks[k]
		out = append(out, FlowCheck{c.step, c.name, c.passes, c.fails})
	}
	return out
}

// Steps are the names of the steps that ran, in the order first seen.
func (t *FlowTally) Steps() []string { return append([]string(nil), t.f.order...) }

// Step is step's figures (closed), nil when it never ran.
func (t *FlowTally) Step(name string) *metrics.Metrics {
	m := t.f.steps[name]
	if m != nil {
		m.Close()
	}
	return m
}
