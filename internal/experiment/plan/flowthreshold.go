package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/flow"
)

// flowNames are the names a flow's thresholds may use: its request steps'
// ("group/step") and its checks' (bare, and as "step: check").
type flowNames struct {
	steps  map[string]bool
	checks map[string]bool
}

// noteFlow records the step and check names of scenario's flow.
func (b *builder) noteFlow(scenario string, f *flow.Flow) {
	if b.flows == nil {
		b.flows = map[string]*flowNames{}
	}
	n := b.flows[scenario]
	if n == nil {
		n = &flowNames{steps: map[string]bool{}, checks: map[string]bool{}}
		b.flows[scenario] = n
	}
	for _, s := range f.Requests() {
		n.steps[s.Name] = true
		for _, c := range s.Recorded.Checks {
			n.checks[c] = true
			n.checks[s.Name+": "+c] = true
		}
	}
}

// flowStep reports whether name is a step of a flow scenario.
func (b *builder) flowStep(name string) bool {
	for _, n := range b.flows {
		if n.steps[name] {
			return true
		}
	}
	return false
}

// checkFlowThreshold refuses a flow threshold that names a step or check
// no flow of the plan has, or that no flow scenario could answer. A run
// folder's copy of the plan (record) is not checked: its flow files may
// be gone.
func (b *builder) checkFlowThreshold(t threshold.Threshold) error {
	if !t.Flow() || b.record {
		return nil
	}
	if t.Step != "" && t.Flow() && (t.Metric == "checks" || t.Metric == "check" || strings.HasPrefix(t.Metric, "sessions_")) {
		return fmt.Errorf("%s is a figure of the whole flow, not of a step: leave out %q", t.Metric, t.Step+":")
	}
	var scoped []*flowNames
	for name, n := range b.flows {
		if t.Scenario == "" || t.Scenario == name {
			scoped = append(scoped, n)
		}
	}
	if len(scoped) == 0 {
		if t.Scenario != "" {
			return fmt.Errorf("scenario %s runs no flow, so it has no steps, checks or sessions", t.Scenario)
		}
		return fmt.Errorf("no scenario runs a flow, so there are no steps, checks or sessions to judge")
	}
	var known []string
	found := t.Step == "" && t.Metric != "check"
	for _, n := range scoped {
		switch {
		case t.Step != "":
			found = found || n.steps[t.Step]
			known = append(known, keys(n.steps)...)
		case t.Metric == "check":
			found = found || n.checks[t.CheckName]
			known = append(known, keys(n.checks)...)
		}
	}
	if found {
		return nil
	}
	sort.Strings(known)
	if t.Step != "" {
		return fmt.Errorf("no flow step named %q (known: %s)", t.Step, strings.Join(dedupe(known), ", "))
	}
	if len(known) == 0 {
		return fmt.Errorf("no check named %q: the flow has no checks", t.CheckName)
	}
	return fmt.Errorf("no check named %q (known: %s)", t.CheckName, strings.Join(dedupe(known), ", "))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// dedupe drops repeats from a sorted list.
func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
