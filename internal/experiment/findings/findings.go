// Package findings is the analysis of a run: from a Summary (what
// summary.json holds) it states what the data shows, in sentences a
// newcomer can read, each a typed summary.Finding: component failures,
// which configuration held and which collapsed at the same load, where
// success fell below 99% in a sweep, the limits per configuration, how the
// other scenarios fared, what the pool metrics were doing meanwhile, the
// breaker's story and the pool staircase (measured on the run folder's
// results streams by MeasureStaircases). The explanations (why a pool
// fell, the staircase, the breaker) are heuristics on the measured figures;
// a Predictor (a model of the system under test) replaces them for the
// steps it covers. It is the only part of the experiment that reads the
// proxy's configuration.
package findings

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Finding is one typed sentence of the analysis.
type Finding = summary.Finding

// Predictor explains a step from a model of the system under test (what
// queued where, for how long, and why). Explain returns the step's
// explanations and true when the model covers the step; its findings then
// replace the heuristic ones (cause, staircase, breaker) for that step.
type Predictor interface {
	Explain(sum *summary.Summary, st *summary.StepResult) ([]Finding, bool)
}

// Options tune the analysis.
type Options struct {
	// Predictor explains the steps its model covers; the rest keep the
	// heuristic explanations. Nil means Model: the predictions
	// summary.json holds.
	Predictor Predictor
}

// Compute states the findings of a run.
func Compute(sum *summary.Summary, opts Options) []Finding {
	out := measured(sum)
	modelled := map[*summary.StepResult]bool{}
	var predicted []Finding
	pred := opts.Predictor
	if pred == nil {
		pred = Model{}
	}
	for _, st := range sum.Steps {
		if fs, ok := pred.Explain(sum, st); ok {
			modelled[st] = true
			predicted = append(predicted, fs...)
		}
	}
	for _, f := range modelAgreement(sum) {
		predicted = append([]Finding{f.Finding}, predicted...)
	}
	var kept []Finding
	for _, f := range out {
		if f.Heuristic && modelled[f.step] {
			continue
		}
		kept = append(kept, f.Finding)
	}
	if len(sum.Search) > 0 {
		s := sum.Search[0]
		kept = append([]Finding{{Kind: summary.KindSearch, Text: fmt.Sprintf("Capacity: the highest rate of %s that meets the thresholds, found by bisection on real runs, each answer run once more to confirm it: %s.", s.Scenario, summary.SearchSentence(sum.Search))}}, kept...)
	}
	return append(kept, predicted...)
}

// finding is a Finding with the step it explains (nil: the run as a whole).
type finding struct {
	Finding
	step *summary.StepResult
}

func fact(kind, text string) finding { return finding{Finding: Finding{Kind: kind, Text: text}} }

func heuristic(kind string, st *summary.StepResult, text string) finding {
	return finding{Finding: Finding{Kind: kind, Text: text, Heuristic: true}, step: st}
}

// measured is every finding the figures support, heuristics included.
func measured(sum *summary.Summary) (out []finding) {
	for _, st := range sum.Steps {
		for _, d := range st.Deaths {
			last := ""
			if n := len(d.LastOutput); n > 0 {
				last = ": last output \"" + d.LastOutput[n-1] + "\""
			}
			out = append(out, fact(summary.KindFailure, fmt.Sprintf("Component %s failed in step %q (%s)%s; results up to that point are kept.", d.Name, st.Name, orText(d.Exit, d.StartError), last)))
		}
	}
	out = append(out, generatorLag(sum)...)
	main := sum.Main()
	if main == "" {
		return out
	}
	// Steps during which the generator itself stalled measure the machine,
	// not the system under test: they are named and left out.
	var kept []*summary.StepResult
	var bad []string
	for _, st := range sum.Steps {
		if why := st.Disturbed(); why != "" {
			bad = append(bad, fmt.Sprintf("%q (%s)", st.Name, why))
			continue
		}
		kept = append(kept, st)
	}
	var backlog []string
	for _, st := range kept {
		for _, sc := range st.Scenarios {
			if sc.DroppedAtMaxWorkers > 0 {
				backlog = append(backlog, fmt.Sprintf("%q (%d %s requests)", st.Name, sc.DroppedAtMaxWorkers, sc.Name))
			}
		}
	}
	if len(backlog) > 0 {
		note := fact(summary.KindBacklog, fmt.Sprintf("The target held max_workers requests unanswered, so later ones were not sent and count as failures: %s.", strings.Join(backlog, "; ")))
		defer func() { out = append(out, note) }()
	}
	if len(bad) > 0 {
		note := fact(summary.KindDisturbed, fmt.Sprintf("Left out of the comparisons, because the load generator could not keep its schedule (a busy machine; re-run them): %s.", strings.Join(bad, "; ")))
		defer func() { out = append(out, note) }()
		clean := *sum
		clean.Steps = kept
		sum = &clean
		if len(kept) == 0 {
			return nil // the deferred note is all there is to say
		}
	}
	configs := map[string]bool{}
	for _, st := range sum.Steps {
		configs[st.Configuration] = true
	}
	switch {
	case len(sum.Search) > 0:
		// A capacity search's answer is its own finding: its runs are at
		// rates of its choosing, so neither a comparison at one load nor
		// a sweep over its runs says anything true.
	case len(configs) > 1 && sum.Compares():
		out = append(out, compareConfigs(sum, main)...)
		out = append(out, usersKnees(sum, main)...)
	default:
		out = append(out, sweep(sum, main)...)
	}
	if l := limits(sum, main); l != "" {
		lf := fact(summary.KindLimit, l)
		if len(out) > 0 {
			out = append(out[:1], append([]finding{lf}, out[1:]...)...)
		} else {
			out = append(out, lf)
		}
	}
	out = append(out, breakerStory(sum)...)
	return append(out, staircases(sum)...)
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
