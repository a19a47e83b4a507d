package writeup_test

import (
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/writeup"
)

// After a capacity search (example 005) the terminal says each mechanism
// of the model once, as the report does, and every other finding once,
// in order.
func TestSaidOncePerMechanism(t *testing.T) {
	sum, _, _ := write(t, "capacity", "../../../examples/005-capacity-search/plan.yaml")
	said := writeup.Said(sum.Findings)
	var others []string
	explained := 0
	for _, f := range sum.Findings {
		if f.Kind == summary.KindModel {
			explained++
		} else if !(f.Kind == summary.KindPrediction && strings.HasPrefix(f.Text, "In step ")) {
			others = append(others, f.String())
		}
	}
	mechanisms, i := 0, 0
	for _, s := range said {
		switch {
		case strings.HasPrefix(s, "What the model says happened in "):
			mechanisms++
			if strings.Contains(s, "below") {
				t.Errorf("%q points below, on a terminal", s)
			}
		case strings.HasPrefix(s, "In step ") && strings.Contains(s, "explains it"):
			t.Errorf("a step's explanation said on its own: %q", s)
		case strings.HasPrefix(s, "Missed in "):
		default:
			if i >= len(others) || s != others[i] {
				t.Fatalf("finding %d is %q, want the findings in order %q", i, s, others)
			}
			i++
		}
	}
	if i != len(others) {
		t.Errorf("%d of %d other findings said", i, len(others))
	}
	if explained < 3 || mechanisms == 0 || mechanisms >= explained {
		t.Errorf("%d explanations said as %d sentences: none said once for several steps", explained, mechanisms)
	}
}
