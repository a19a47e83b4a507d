package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/targets"
)

// TestPredictAttacksOnePerRate predicts three rates through the playground
// (an origin answering in 20 ms, no proxy): one step each, numbered and
// named by rate and target, each the model's own prediction of that rate
// alone; the knee is searched from the last attack; a threshold the
// search cannot judge is a KneeError, and a recipe file that is not one
// is bad input naming the file.
func TestPredictAttacksOnePerRate(t *testing.T) {
	dir := t.TempDir()
	recipeFile := filepath.Join(dir, "origin.json")
	if err := os.WriteFile(recipeFile, []byte(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "20ms"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := targets.ReadAll(strings.NewReader("GET http://loadlab.model.invalid/page"), targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var scheds []*schedule.Schedule
	for _, r := range []string{"10/s", "20/s", "40/s"} {
		sch, err := schedule.Parse(r, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		scheds = append(scheds, sch)
	}
	calls := 0
	pg := Playground{Recipe: recipeFile, Targets: ts, Timeout: time.Second, Seed: 1,
		Costs: func() (Costs, string, error) { calls++; return DefaultCosts, "reference", nil }}
	steps, knees, err := PredictAttacks(pg, Attacks{Schedules: scheds, Target: "/page", Knee: &KneeOptions{Precision: 0.1, Max: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || len(knees) != 1 {
		t.Fatalf("%d steps and %d knees, want 3 and 1", len(steps), len(knees))
	}
	for i, st := range steps {
		if st.Step != i+1 || st.Name != scheds[i].String()+" for 2s on /page" || st.Costs != "reference" {
			t.Errorf("step %d: number %d, name %q, costs %q", i+1, st.Step, st.Name, st.Costs)
		}
		alone, err := pg.AttackInput(scheds[i])
		if err != nil {
			t.Fatal(err)
		}
		want, err := Predict(alone)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Prediction.Scenarios[0]; got.Requests != want.Scenarios[0].Requests || got.Requests == 0 {
			t.Errorf("step %d: %d requests, predicted alone %d", i+1, got.Requests, want.Scenarios[0].Requests)
		}
	}
	if calls == 0 {
		t.Error("the costs were never asked for")
	}
	if knees[0].Scenario != "attack" {
		t.Errorf("knee of %q, want the attack", knees[0].Scenario)
	}

	ramp, err := schedule.Parse("10/s..40/s", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = PredictAttacks(pg, Attacks{Schedules: []*schedule.Schedule{ramp}, Target: "/page", Knee: &KneeOptions{}})
	var kerr *KneeError
	if !errors.As(err, &kerr) || !strings.Contains(err.Error(), "constant rate") {
		t.Errorf("the knee of a ramp: %v, want a *KneeError saying it needs a constant rate", err)
	}

	pg.Recipe = filepath.Join(dir, "missing.json")
	_, _, err = PredictAttacks(pg, Attacks{Schedules: scheds, Target: "/page"})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing recipe: %v, want bad input naming the file", err)
	}
}
