package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/metrics"
)

const thresholdUsage = "pass/fail `criterion` judged on the whole (merged) run, e.g. \"p99 < 1s\", \"success > 99%\" or \"search: rps >= 900\" (a name before ':' is an attack); repeatable; a failed one prints why and exits 1"

// parseThresholds reads -threshold values (bad input names the flag).
func parseThresholds(list []string) ([]threshold.Threshold, error) {
	var out []threshold.Threshold
	for _, s := range list {
		t, err := threshold.Parse(s)
		if err != nil {
			return nil, badinput.Field("-threshold", "%v", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// checkThresholds judges the run's figures (closed metrics, with their
// per-attack breakdown) against the thresholds: one line per threshold on
// w, and an error with exit code 1 when any failed. A threshold naming an
// attack the results do not hold is bad input.
func checkThresholds(ths []threshold.Threshold, m *metrics.Metrics, w io.Writer) error {
	if len(ths) == 0 || m == nil {
		return nil
	}
	var failed []string
	for _, t := range ths {
		v := m
		if t.Scenario != "" {
			v = nil
			var names []string
			if b := m.Breakdown(); b != nil {
				for _, g := range b.ByAttack() {
					names = append(names, g.Key)
					if g.Key == t.Scenario {
						v = g.Metrics
					}
				}
			}
			if v == nil {
				return badinput.Field("-threshold", "%q: no attack named %q in the results (attacks: %s)", t.Source, t.Scenario, strings.Join(names, ", "))
			}
		}
		actual, pass, ok := t.Check(v)
		switch {
		case !ok:
			failed = append(failed, t.Source)
			fmt.Fprintf(w, "threshold %s: no figure (no requests)  FAILED\n", t.Source)
		case pass:
			fmt.Fprintf(w, "threshold %s: %s  ok\n", t.Source, t.Format(actual))
		default:
			failed = append(failed, t.Source)
			fmt.Fprintf(w, "threshold %s: %s  FAILED\n", t.Source, t.Format(actual))
		}
	}
	if len(failed) > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d of %d thresholds crossed (%s): exit 1 means a threshold failed, not an error", len(failed), len(ths), strings.Join(failed, "; "))}
	}
	return nil
}
