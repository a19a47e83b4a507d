package summary

import "encoding/json"

// Kinds of findings: what a finding states.
const (
	KindFailure    = "failure"    // a component failed during a step
	KindComparison = "comparison" // which configuration held at the same load, or that they were alike
	KindSweep      = "sweep"      // where success fell below 99% over the steps
	KindLimit      = "limit"      // the last rate each configuration held
	KindShared     = "shared"     // how the other scenarios fared through the same proxy
	KindCause      = "cause"      // why a configuration fell, from the sampled pool metrics
	KindCost       = "cost"       // what a configuration cost where all held
	KindBreaker    = "breaker"    // the pool drained and the breaker opened
	KindStaircase  = "staircase"  // latency climbed in the pool staircase
	KindDisturbed  = "disturbed"  // steps left out because the generator fell behind
	KindBacklog    = "backlog"    // requests dropped at max_workers: the target held that many unanswered
	KindModel      = "model"      // what the model says happened in a step, and why
	KindPrediction = "prediction" // whether the measurements agreed with the model's predictions
	KindSearch     = "search"     // a capacity search's answer per configuration
	KindGenerator  = "generator"  // the generator's own lag was a visible share of the latency, or its pacer fell back
)

// Finding is one sentence the data supports, of one kind. A heuristic
// finding explains the figures by rules of thumb rather than by a model
// of the system under test, and says so in the report.
type Finding struct {
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Heuristic bool   `json:"heuristic,omitempty"`
}

// UnmarshalJSON also reads the plain sentences older summaries hold.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = Finding{Text: s}
		return nil
	}
	type plain Finding
	return json.Unmarshal(b, (*plain)(f))
}

// String is the finding as the report states it: heuristic ones end with
// a note that they are.
func (f Finding) String() string {
	if f.Heuristic {
		return f.Text + " (A heuristic reading of the measured figures, not a model's.)"
	}
	return f.Text
}

// Texts returns the findings' sentences.
func Texts(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}
