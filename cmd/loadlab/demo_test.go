package main

import (
	"reflect"
	"testing"
)

func TestDemoFindingsTellTheStory(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"what, why, the other route, the cost; limits left to the report",
			[]string{"At 69 req/s, fixed did better.", "Limits (last rate ...).", "news, requested at only 1/s through the same proxy, fell.", "Why: the manager.", "Cost: at 40 req/s."},
			[]string{"Finding: At 69 req/s, fixed did better.", "Why: the manager.", "news, requested at only 1/s through the same proxy, fell.", "Cost: at 40 req/s."}},
		{"notes always shown",
			[]string{"The configurations performed alike.", "Left out of the comparisons: x."},
			[]string{"Finding: The configurations performed alike.", "Note: Left out of the comparisons: x."}},
		{"only a note", []string{"Left out of the comparisons: x."}, []string{"Note: Left out of the comparisons: x."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := demoFindings(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
