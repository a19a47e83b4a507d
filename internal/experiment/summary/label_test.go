package summary

import (
	"strings"
	"testing"
)

func TestLabels(t *testing.T) {
	step := func(api, label, endpoint, rate string) *StepResult {
		return &StepResult{Configuration: label + ", " + endpoint, Variants: map[string]string{"api": api},
			Vars:      map[string]string{"api": api, "api.label": label, "endpoint": endpoint, "rate": rate},
			Scenarios: []*ScenarioResult{{Name: "api", Rate: rate + "/s"}}}
	}
	s := &Summary{
		Design: &Design{Compares: true, Axes: []Axis{{Key: "api", Component: true, Values: []string{"ruby", "go"}},
			{Key: "endpoint", Values: []string{"info", "buildpacks"}}, {Key: "rate", Values: []string{"8", "512"}}},
			Scenarios: []ScenarioDesign{{Name: "api", Target: "GET ${api.url}/v3/info?x=info"}}},
		Steps: []*StepResult{step("ruby", "ruby (2 workers)", "info", "8"), step("go", "go (64 workers)", "buildpacks", "512")},
	}
	last := s.Steps[1]
	for _, c := range []struct{ got, want string }{
		{s.RateAxis(), "rate"},
		{s.CellLabel(last), "/v3/buildpacks at 512/s"},
		{s.GroupLabel(last), "go (64 workers), /v3/buildpacks"},
		{s.ConfigLabel(last), "go (64 workers)"},
		{s.AtLoad(last), "on /v3/buildpacks at 512/s"},
		{s.TargetTemplate("api"), "`GET ${api.url}/v3/${endpoint}?x=info` (endpoint: info, buildpacks)"},
		{s.TargetTemplate("other"), ""},
		{targetPath("GET http://127.0.0.1:80/a/b?q=1"), "/a/b"},
		{targetPath("GET"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// A plan whose only variable is the rate places its sentences at the rate.
	rs := &Summary{Design: &Design{Axes: []Axis{{Key: "rate", Values: []string{"8"}}}}, Steps: []*StepResult{{Vars: map[string]string{"rate": "8"}, Scenarios: []*ScenarioResult{{Rate: "8/s"}}}}}
	if got := rs.AtLoad(rs.Steps[0]); got != "at 8 req/s" {
		t.Errorf("AtLoad = %q", got)
	}
}

// FuzzReplaceSegment: replacing a path segment ends, and replacing a value
// by itself changes nothing.
func FuzzReplaceSegment(f *testing.F) {
	f.Add("GET ${u}/v3/info/info?info", "info", "${endpoint}")
	f.Add("//", "", "x")
	f.Fuzz(func(t *testing.T, s, value, repl string) {
		if got := replaceSegment(s, value, value); got != s {
			t.Fatalf("replaceSegment(%q, %q, itself) = %q", s, value, got)
		}
		out := replaceSegment(s, value, repl)
		if value != "" && !strings.Contains(repl, value) && segmentAt(out, value) >= 0 {
			t.Fatalf("replaceSegment(%q, %q, %q) = %q still holds the segment", s, value, repl, out)
		}
	})
}

func TestSearchSentenceSaysUnconfirmed(t *testing.T) {
	rs := []SearchResult{
		{Configuration: "16 workers", Rate: 76.47, Precision: 0.02, Predicted: 81.25, Probes: []SearchProbe{
			{Rate: 81.25, Pass: true}, {Rate: 81.25, Confirmation: true}, {Rate: 79.6, Confirmation: true}, {Rate: 78.0, Confirmation: true}}},
		{Configuration: "overflow", Rate: 95.8, Precision: 0.02, Confirmed: true},
	}
	want := "16 workers: below 78 req/s, not confirmed (the confirmation runs at 81.3, 79.6, 78 req/s failed) (model: 81.3); overflow: 95.8 req/s ± 2%"
	if got := SearchSentence(rs); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
