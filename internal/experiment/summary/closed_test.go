package summary

import (
	"github.com/loadlab/loadlab/internal/load"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestUsersAndCalibrationsAreOptional: a closed loop's users and the
// calibrations' cost are fields added without a version: summary.json
// written before them reads with none (a paced scenario, no calibration
// recorded), a paced run's summary.json holds neither key (it reads the
// same in an older loadlab, which ignores keys it does not know), and
// both survive a write and a load.
func TestUsersAndCalibrationsAreOptional(t *testing.T) {
	data, err := os.ReadFile("../testdata/demo-summary.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, File), data, 0o644); err != nil {
		t.Fatal(err)
	}
	demo, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if demo.Calibrations != nil {
		t.Errorf("a summary written before calibrations were kept reads %+v", demo.Calibrations)
	}
	for _, st := range demo.Steps {
		for _, sc := range st.Scenarios {
			if sc.Closed() || sc.Load().String() != sc.Rate || sc.Achieved() != sc.Rate {
				t.Errorf("%s: paced %s reads as %q / %q", st.Name, sc.Rate, sc.Load(), sc.Achieved())
			}
		}
	}
	if err := Write(dir, demo); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, File))
	if strings.Contains(string(again), `"users"`) || strings.Contains(string(again), `"calibrations"`) {
		t.Errorf("a paced run's summary.json holds users or calibrations")
	}

	s := &Summary{Name: "users", Steps: []*StepResult{{Name: "32 users", Scenarios: []*ScenarioResult{{Name: "page", Rate: "0", Users: 32, Throughput: 155.4}}}},
		Calibrations: []Calibration{{Configuration: "32 users", Scenario: "page", Target: "GET http://127.0.0.1:1/", Before: "32 users", Requests: 955, HighestRate: 640, Took: 7600 * time.Millisecond}}}
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Calibrations, s.Calibrations) || got.Steps[0].Scenarios[0].Users != 32 {
		t.Errorf("loaded %+v, %+v", got.Calibrations, got.Steps[0].Scenarios[0])
	}
	if sc := got.Steps[0].Scenarios[0]; sc.Load().String() != "32 users" || sc.Achieved() != "32 users, 155 req/s" {
		t.Errorf("a closed loop reads as %q / %q", sc.Load(), sc.Achieved())
	}
}

// A real run comparing two pools at 4 and 32 users: the users are the
// load of each matrix cell, as a rate is ("32 users", "with 32 users"),
// and what the brief's rows are keyed by.
func TestUsersAreTheLoad(t *testing.T) {
	data, err := os.ReadFile("../testdata/users-pools-summary.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, File), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.RateAxis() != "users" {
		t.Fatalf("rate axis %q, want the users", s.RateAxis())
	}
	for _, st := range s.Steps {
		users := load.Closed(st.Scenarios[0].Users).String()
		if s.CellLabel(st) != users || s.AtLoad(st) != "with "+users || s.KeyText(st) != users || s.VarsLabel(st) != "" {
			t.Errorf("step %q: cell %q, at %q, key %q, vars %q; want %s", st.Name, s.CellLabel(st), s.AtLoad(st), s.KeyText(st), s.VarsLabel(st), users)
		}
	}
}
