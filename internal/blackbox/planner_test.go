package blackbox

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
)

// TestMain doubles as the plan's black box: with LOADLAB_BLACKBOX_HELPER
// set, this test binary serves the box (a pool of 8 in front of a 50 ms
// origin) as a `kind: command` component whose code the plan does not
// know, and prints its URL.
func TestMain(m *testing.M) {
	if os.Getenv("LOADLAB_BLACKBOX_HELPER") == "" {
		os.Exit(m.Run())
	}
	box, err := lab.Start(boxConfig, boxRecipe)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("box listening on %s\n", box.URL)
	time.Sleep(60 * time.Second) // bounded: the run stops it long before
	os.Exit(0)
}

// TestPlanCalibratesItsTarget: a plan scenario with `calibrate: true`,
// aimed at a command the model does not know, is calibrated once the
// component is up; the step's prediction (summary.json steps[].model)
// comes from the fitted queue and meets the measurement at 1.5 times the
// capacity (160/s); the knee a capacity search would start from is the
// fitted capacity.
func TestPlanCalibratesItsTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates and attacks a live target for about 15 s")
	}
	dir := t.TempDir()
	src := fmt.Sprintf(`name: black box
components:
  box:
    kind: command
    command: [%q, "-test.run=^$"]
    env: {LOADLAB_BLACKBOX_HELPER: "1"}
scenarios:
  - name: page
    target: GET ${box.url}/page
    rate: 240/s
    duration: 4s
    timeout: 5s
    calibrate: true
`, os.Args[0])
	p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), dir, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	pl := &Planner{Planner: model.Planner{Seed: 1}, Step: 1500 * time.Millisecond, Log: &log}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := experiment.Run(ctx, experiment.Options{Plan: p, Out: filepath.Join(dir, "out"), Version: "test", Model: pl, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	st := res.Summary.Steps[0]
	if st.Model == nil || st.Model.Error != "" || len(st.Model.Scenarios) != 1 {
		t.Fatalf("no prediction from the fit: %+v\n%s", st.Model, log.String())
	}
	pred, got := st.Model.Scenarios[0], st.Scenarios[0]
	t.Logf("predicted %.1f%% p50 %.0f ms; measured %.1f%% p50 %.0f ms", 100*pred.Success, 1000*pred.Latencies.P50.Seconds(), 100*got.Success, 1000*got.Latency.P50.Seconds())
	// 160 of 240 a second served: about two thirds, the rest refused
	// after the 300 ms wait.
	if pred.Success < 0.55 || pred.Success > 0.8 || math.Abs(pred.Success-got.Success) > 0.08 {
		t.Errorf("predicted %.1f%% success, measured %.1f%%, want both about 67%%\n%s", 100*pred.Success, 100*got.Success, log.String())
	}
	if !strings.Contains(log.String(), "calibration of page: GET http://127.0.0.1:") {
		t.Errorf("the run's log does not say it calibrated:\n%s", log.String())
	}
	// summary.json keeps what the calibration cost: the fit's requests.
	f := pl.fit(p, p.Steps[0], "page")
	if f == nil {
		t.Fatalf("no fit kept\n%s", log.String())
	}
	if c := res.Summary.Calibrations; len(c) != 1 || c[0].Requests != f.Requests || c[0].HighestRate != f.HighestRate || c[0].Before != p.Steps[0].Name {
		t.Errorf("calibrations recorded %+v, the fit cost %d requests", c, f.Requests)
	}
	report, err := os.ReadFile(res.Report)
	if err != nil || !strings.Contains(string(report), "Predicted and measured") {
		t.Errorf("the report has no predicted-and-measured table (%v)", err)
	}
	ths := []threshold.Threshold{mustThreshold(t, "success >= 99%")}
	k, ok := pl.Knee(p, p.Steps[0], "page", ths, 0.02, 2000)
	if !ok || k < 120 || k > 185 {
		t.Errorf("the knee a search starts from: %.0f/s (%v), want about 160", k, ok)
	}
}

// The Planner is what `loadlab run` calibrates black boxes with: the
// runner finds it by this interface.
var _ experiment.Calibrator = (*Planner)(nil)

func mustThreshold(t *testing.T, s string) threshold.Threshold {
	t.Helper()
	th, err := threshold.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}
