package summary

import (
	"strings"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Flow is a flow scenario's figures, counted from its results stream: its
// sessions, each request step's figures in the flow's order and its
// checks, as `loadlab report` shows them.
type Flow struct {
	Sessions FlowSessions `json:"sessions"`
	// SessionDuration is the started sessions' durations, from the first
	// request's due instant to the last answer.
	SessionDuration metrics.LatencySummary `json:"session_duration"`
	Steps           []FlowStep             `json:"steps,omitempty"`
	Checks          []FlowCheck            `json:"checks,omitempty"`
}

// FlowSessions counts a flow's sessions by how they ended.
type FlowSessions struct {
	Started     uint64 `json:"started"`
	Completed   uint64 `json:"completed"`
	Failed      uint64 `json:"failed"`
	Interrupted uint64 `json:"interrupted,omitempty"`
	Dropped     uint64 `json:"dropped"` // never started: due while the bound on sessions in flight was reached
	// FailedBy counts the failed sessions by the check or capture that
	// stopped them ("step: check").
	FailedBy map[string]uint64 `json:"failed_by,omitempty"`
}

// FlowStep is one request step's figures ("group/step" inside a group).
type FlowStep struct {
	Name     string  `json:"name"`
	Requests uint64  `json:"requests"`
	Success  float64 `json:"success"`
	// Latency runs from when each request was due.
	Latency metrics.LatencySummary `json:"latencies"`
}

// FlowCheck is one check of one step: its passes and fails.
type FlowCheck struct {
	Step   string `json:"step"`
	Name   string `json:"name"`
	Passes uint64 `json:"passes"`
	Fails  uint64 `json:"fails"`
}

// Ratio is the share of the check's runs that passed (0 when it never ran).
func (c FlowCheck) Ratio() float64 {
	if c.Passes+c.Fails == 0 {
		return 0
	}
	return float64(c.Passes) / float64(c.Passes+c.Fails)
}

// Value gives the flow's figures a threshold judges, as ratios: "checks"
// (every check's runs that passed), "check NAME" (the runs of the checks
// named NAME, bare or as "step: check", that passed), "sessions_failed"
// (of the started sessions) and "sessions_dropped" (of the sessions due).
// ok is false when there is nothing to count.
func (f *Flow) Value(metric string) (float64, bool) {
	if f == nil {
		return 0, false
	}
	ratio := func(part, whole uint64) (float64, bool) {
		if whole == 0 {
			return 0, false
		}
		return float64(part) / float64(whole), true
	}
	s := f.Sessions
	switch metric {
	case "sessions_failed":
		return ratio(s.Failed, s.Started)
	case "sessions_dropped":
		return ratio(s.Dropped, s.Started+s.Dropped)
	case "checks":
		var pass, all uint64
		for _, c := range f.Checks {
			pass, all = pass+c.Passes, all+c.Passes+c.Fails
		}
		return ratio(pass, all)
	}
	if name, ok := strings.CutPrefix(metric, "check "); ok {
		var pass, all uint64
		for _, c := range f.Checks {
			if c.Name == name || c.Step+": "+c.Name == name {
				pass, all = pass+c.Passes, all+c.Passes+c.Fails
			}
		}
		return ratio(pass, all)
	}
	return 0, false
}
