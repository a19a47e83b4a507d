package results

import (
	"strings"
	"time"
)

// Flow results. A flow (loadlab attack -flow, a plan's flow: scenario)
// runs sessions of several requests; each of its results says which step
// it ran (Result.FlowStep), in which session (Result.Session), which of the
// step's checks failed (Result.Failed), and the last result of a session
// says how the session ended (Result.Ended). A plain attack's results leave
// them zero, and its stream is written exactly as before (version 2).

// FlowVersion is the stream version written for a flow's results: version
// 2 with the flow fields (FlowStep, Session, Failed, Ended) in the records
// that carry them. Streams of plain attacks stay version 2.
const FlowVersion = 3

// FlowStep is one request step of a flow as its results record it: its
// name ("group/step") and the names of its checks, in order (bit i of
// Result.Failed is Checks[i]). Make it with NewFlowStep; it is shared by
// every result of the step and must not be modified.
type FlowStep struct {
	Name   string
	Checks []string
	key    string // the dictionary value: Name, then each check, NUL-separated
}

// MaxChecks bounds the checks of one step (Result.Failed's bits).
const MaxChecks = 64

// NewFlowStep makes the FlowStep of step name with the named checks (at
// most MaxChecks; names hold no NUL byte).
func NewFlowStep(name string, checks []string) *FlowStep {
	return &FlowStep{Name: name, Checks: checks, key: strings.Join(append([]string{name}, checks...), "\x00")}
}

// flowStepOf reads a dictionary value back into a FlowStep.
func flowStepOf(key string) *FlowStep {
	parts := strings.Split(key, "\x00")
	return &FlowStep{Name: parts[0], Checks: parts[1:], key: key}
}

// Outcomes of a session, as Result.Ended.Outcome says them: Completed, or
// the reason it stopped: "check NAME failed", "capture NAME failed",
// Dropped...
const (
	// Completed: the session ran every step.
	Completed = "completed"
	// Dropped: the session could not start on time (the bound on sessions
	// in flight was reached, or the generator fell behind); its one result
	// is a dropped one.
	Dropped = "dropped"
	// Interrupted: the attack ended (stopped, interrupted) while the
	// session ran.
	Interrupted = "interrupted"
	// FailedPrefix starts the outcome of a session stopped by a failed
	// check, capture or request: "failed: check login: status 200".
	FailedPrefix = "failed: "
)

// SessionEnd is how a session ended, on its last result.
type SessionEnd struct {
	// Outcome is Completed, Dropped, Interrupted, or FailedPrefix and
	// what failed; "" on the results before a session's last.
	Outcome string
	// Duration runs from the session's start (the due time of its first
	// request) to the end of its last answer.
	Duration time.Duration
}

// Flow reports whether r is the result of a flow's request.
func (r *Result) Flow() bool { return r.FlowStep != nil }
