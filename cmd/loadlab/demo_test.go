package main

import (
	"reflect"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

func TestDemoFindingsTellTheStory(t *testing.T) {
	var (
		compared = summary.Finding{Kind: summary.KindComparison, Text: "At 69 req/s, fixed did better."}
		limits   = summary.Finding{Kind: summary.KindLimit, Text: "Limits (last rate ...)."}
		shared   = summary.Finding{Kind: summary.KindShared, Text: "news, requested at only 1/s through the same proxy, fell."}
		cause    = summary.Finding{Kind: summary.KindCause, Text: "Why: the manager.", Heuristic: true}
		cost     = summary.Finding{Kind: summary.KindCost, Text: "Cost: at 40 req/s."}
		alike    = summary.Finding{Kind: summary.KindComparison, Text: "The configurations performed alike."}
		note     = summary.Finding{Kind: summary.KindDisturbed, Text: "Left out of the comparisons: x."}
	)
	tests := []struct {
		name string
		in   []summary.Finding
		want []string
	}{
		{"what, why, the other route, the cost; limits left to the report",
			[]summary.Finding{compared, limits, shared, cause, cost},
			[]string{"Finding: At 69 req/s, fixed did better.", cause.String(), "news, requested at only 1/s through the same proxy, fell.", "Cost: at 40 req/s."}},
		{"notes always shown",
			[]summary.Finding{alike, note},
			[]string{"Finding: The configurations performed alike.", "Note: Left out of the comparisons: x."}},
		{"only a note", []summary.Finding{note}, []string{"Note: Left out of the comparisons: x."}},
		{"picked by kind, not by wording", []summary.Finding{compared, {Kind: summary.KindCause, Text: "With the overflow pool the manager fell behind."}},
			[]string{"Finding: At 69 req/s, fixed did better.", "With the overflow pool the manager fell behind."}},
		{"the model's why before the heuristics', the manager's story first, and the predictions' verdict",
			[]summary.Finding{compared, shared, {Kind: summary.KindModel, Text: "In step 69 fixed, the queue."}, {Kind: summary.KindModel, Text: "In step 69 overflow, the serial manager."}, cost,
				{Kind: summary.KindPrediction, Text: "The model's predictions held for 12 of 12."}},
			[]string{"Finding: At 69 req/s, fixed did better.", "In step 69 overflow, the serial manager.", shared.Text, cost.Text, "The model's predictions held for 12 of 12."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := demoFindings(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
