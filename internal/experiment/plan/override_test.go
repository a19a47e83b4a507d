package plan

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

const overridable = `target: http://127.0.0.1:9
vars: {duration: 2s}
matrix:
  rate: [10, 20, 30]
scenarios:
  - {name: a, target: "GET ${target}/a", rate: "${rate}/s", duration: "${duration}"}
`

func TestOverrides(t *testing.T) {
	p, err := Parse("p.yaml", "testdata", []byte(overridable))
	if err != nil || len(p.Steps) != 3 || p.Steps[0].Scenarios[0].Duration != 2*time.Second {
		t.Fatalf("without -set: %v", err)
	}
	set := []Override{{"duration", "300s"}, {"rate", "1000"}}
	p, err = Parse("p.yaml", "testdata", []byte(overridable), set...)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Name != "rate=1000" {
		t.Fatalf("a matrix axis set from the command line runs one step: %d steps, first %q", len(p.Steps), p.Steps[0].Name)
	}
	sc := p.Steps[0].Scenarios[0]
	if sc.Duration != 300*time.Second || sc.Rate.From.PerSecond() != 1000 || len(p.Overrides) != 2 {
		t.Errorf("scenario %s for %v, overrides %v", sc.Rate.Text, sc.Duration, p.Overrides)
	}

	// A variable that a step sets is overridden in that step too.
	steps := `target: http://127.0.0.1:9
steps:
  - {name: "at ${r}", vars: {r: 5}}
  - {name: "at ${r}", vars: {r: 50}}
scenarios:
  - {name: a, target: "GET ${target}/a", rate: "${r}", duration: 1s}
`
	p, err = Parse("p.yaml", "testdata", []byte(steps), Override{"r", "7"})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		if st.Name != "at 7" || st.Scenarios[0].Rate.From.PerSecond() != 7 {
			t.Errorf("step %q rate %s", st.Name, st.Scenarios[0].Rate.Text)
		}
	}
}

func TestOverrideErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		set  Override
		want string
	}{
		{overridable, Override{"duratoin", "1s"}, `p.yaml: -set: the plan has no variable "duratoin" (known: duration, rate)`},
		{"target: http://127.0.0.1:9\nscenarios:\n  - {target: \"GET ${target}/\", rate: 1, duration: 1s}\n", Override{"x", "1"}, `-set: the plan has no variable "x" (it has no variables`},
		{overridable, Override{"duration", "soon"}, `scenarios[0].duration: "soon" is not a duration`},
	} {
		_, err := Parse("p.yaml", "testdata", []byte(c.src), c.set)
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("-set %s=%s: got %v, want one line with %q", c.set.Name, c.set.Value, err, c.want)
		}
	}
	if o, err := ParseOverride("duration=300s"); err != nil || o != (Override{"duration", "300s"}) {
		t.Errorf("ParseOverride: %v %v", o, err)
	}
	if o, err := ParseOverride("q=a=b"); err != nil || o.Value != "a=b" {
		t.Errorf("value with =: %v %v", o, err)
	}
	for _, bad := range []string{"duration", "=1", "a b=1"} {
		if _, err := ParseOverride(bad); err == nil || !strings.Contains(err.Error(), "want NAME=VALUE") {
			t.Errorf("ParseOverride(%q) = %v", bad, err)
		}
	}
}

// The overrides a run recorded (RunArgs) are read back as they were given,
// and applied to the plan's copy as the run applied them: a run made with
// -set n=8 over a matrix of users 4 and 16 ran one step of 8 users, and
// its record says so.
func TestRecordedOverridesApplyToTheRecord(t *testing.T) {
	set := []Override{{Name: "n", Value: "8"}, {Name: "d", Value: "2s"}}
	args := (&Plan{File: "plan.yaml", Overrides: set}).RunArgs()
	if got := RecordedOverrides(args); !reflect.DeepEqual(got, set) {
		t.Fatalf("RecordedOverrides(%q) = %+v, want %+v", args, got, set)
	}
	if got := RecordedOverrides([]string{"plan.yaml"}); got != nil {
		t.Errorf("no -set: %+v", got)
	}
	plan := "components:\n  origin: {kind: origin, recipe: gone.json}\n" +
		"vars: {d: 1s}\nscenarios:\n  - {name: page, target: \"GET ${origin.url}/\", rate: 0, workers: \"${n}\", duration: \"${d}\"}\nmatrix:\n  n: [4, 16]\n"
	p, err := ParseRecord("plan.yaml", t.TempDir(), []byte(plan), RecordedOverrides(args)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Scenarios[0].Users() != 8 || p.Steps[0].Scenarios[0].Duration != 2*time.Second {
		t.Fatalf("the record with -set n=8 -set d=2s: %d steps, first %+v", len(p.Steps), p.Steps[0].Scenarios[0])
	}
}
