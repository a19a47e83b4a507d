package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// writeFiles writes name → text into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runPlan runs `loadlab run` (this binary as the components) on plan.yaml
// in dir with extra flags, and reads the run's summary.json; it returns
// the exit code, the summary, stdout and stderr.
func runPlan(t *testing.T, dir string, flags ...string) (int, *summary.Summary, string, string) {
	t.Helper()
	t.Setenv(asBinaryEnv, "1")
	out := filepath.Join(dir, "out")
	args := append(append([]string{"run", "-out", out}, flags...), filepath.Join(dir, "plan.yaml"))
	code, stdout, stderr := runCLI(t, nil, args...)
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("exit %d, no summary: %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	var sum summary.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	return code, &sum, stdout, stderr
}

// closedProxy is a pool of 8 workers whose checkout waits 300 ms, then
// answers 503, in front of a 50 ms origin: 160 req/s at most.
const closedProxy = `pools:
  default: {size: 8, overflow: 0, checkout_timeout: 300ms, timeout_status: 503, manager: concurrent}
routes:
  - {name: page, path: /*, upstream: "${origin.url}", pool: default, request_timeout: 2s}
`

const closedOrigin = `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "50ms"}]}`

// TestRunClosedLoopPlan: a plan step with rate: 0 and workers: N runs N
// users each sending its next request when the previous one is answered,
// and the run shows the model's prediction beside the measurement. 4
// users on 8 workers of a 50 ms origin go through at 4 / 50 ms = 80/s;
// 16 users are held to the pool's 160/s and wait about one service for a
// worker (p50 100 ms). Margins are wide (20%): the machine is shared.
func TestRunClosedLoopPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and runs 4 s of load")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"proxy.yaml": closedProxy, "origin.json": closedOrigin, "plan.yaml": `name: users
components:
  origin: {kind: origin, recipe: origin.json}
  proxy: {kind: proxy, config: proxy.yaml}
matrix:
  users: [4, 16]
step_name: "${users} users"
scenarios:
  - {name: page, target: "GET ${proxy.url}/page", rate: 0, workers: "${users}", duration: 2s, timeout: 3s}
`})
	code, sum, _, stderr := runPlan(t, dir)
	if code != 0 || len(sum.Steps) != 2 {
		t.Fatalf("exit %d, %d steps\n%s", code, len(sum.Steps), stderr)
	}
	for i, want := range []struct {
		x   float64
		p50 time.Duration
	}{{80, 50 * time.Millisecond}, {160, 100 * time.Millisecond}} {
		st := sum.Steps[i]
		if st.Model == nil || st.Model.Error != "" || len(st.Model.Scenarios) != 1 || len(st.Scenarios) != 1 {
			t.Fatalf("step %q: no prediction beside the measurement: %+v", st.Name, st.Model)
		}
		pred, got := st.Model.Scenarios[0], st.Scenarios[0]
		gotX := got.Success * float64(got.Requests) / 2
		predX := pred.Success * float64(pred.Requests) / 2
		gotP50, predP50 := got.Latency.P50.Seconds(), pred.Latencies.P50.Seconds()
		t.Logf("%s: measured %.0f/s p50 %.1f ms, predicted %.0f/s p50 %.1f ms", st.Name, gotX, 1000*gotP50, predX, 1000*predP50)
		if math.Abs(gotX-want.x) > 0.2*want.x || math.Abs(gotP50-want.p50.Seconds()) > 0.2*want.p50.Seconds() || got.Success < 0.99 {
			t.Errorf("%s: measured %.0f/s at p50 %.1f ms (%.1f%% ok), want about %.0f/s at %v, all ok", st.Name, gotX, 1000*gotP50, 100*got.Success, want.x, want.p50)
		}
		if math.Abs(predX-gotX) > 0.2*gotX || math.Abs(predP50-gotP50) > 0.2*gotP50 {
			t.Errorf("%s: predicted %.0f/s at p50 %.1f ms, measured %.0f/s at %.1f ms", st.Name, predX, 1000*predP50, gotX, 1000*gotP50)
		}
	}
}

// TestRunSearchFromTheFittedKnee: a capacity search on a scenario with
// calibrate: true starts from the knee fitted against the live target —
// the playground proxy treated as a black box, 8 workers answering 503
// after a 300 ms wait in front of a 50 ms origin — and its answer agrees
// with that knee. With the threshold success > 90%, the knee of a long
// attack is where a tenth is refused, 160 / 0.9 = 178 req/s; a 2 s probe
// holds a little more (the first 300 ms refuse nothing), about 200. The
// fit is calibrated once for the search, not before every probe. The
// answer is judged with a wider margin below (a stalled machine fails a
// probe, never passes one), so the verdict is not on a knife edge.
func TestRunSearchFromTheFittedKnee(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates and searches a live target for about 30 s")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"proxy.yaml": closedProxy, "origin.json": closedOrigin, "plan.yaml": `name: fitted search
components:
  origin: {kind: origin, recipe: origin.json}
  proxy: {kind: proxy, config: proxy.yaml}
scenarios:
  - {name: page, target: "GET ${proxy.url}/page", rate: 100/s, duration: 2s, timeout: 3s, calibrate: true}
thresholds: ["page: success > 90%"]
search: {scenario: page, rate: 20..250, precision: 20%}
`})
	// A calibration made while the machine stalls fits the stall: then
	// the run could not judge the figures, and is made again (at most
	// three times); on a machine that kept up, a miss fails at once.
	for attempt := 1; ; attempt++ {
		began := time.Now()
		_, sum, _, stderr := runPlan(t, dir, "-fit-step", "1s")
		t.Logf("attempt %d took %v", attempt, time.Since(began).Round(time.Second))
		if len(sum.Search) != 1 || len(sum.Search[0].Probes) == 0 {
			t.Fatalf("no search in the summary\n%s", stderr)
		}
		s := sum.Search[0]
		t.Logf("fitted knee %.1f/s, answer %.1f/s, probes %+v", s.Predicted, s.Rate, s.Probes)
		if s.Predicted == 0 || s.Probes[0].Rate != s.Predicted {
			t.Fatalf("the search started at %.1f/s, not at the fitted knee (%.1f/s)\n%s", s.Probes[0].Rate, s.Predicted, stderr)
		}
		if n := strings.Count(stderr, "calibration of page: GET "); n != 1 {
			t.Fatalf("calibrated %d times, want once for the whole search\n%s", n, stderr)
		}
		for _, st := range sum.Steps { // every probe predicted from the fit
			if st.Model == nil || st.Model.Error != "" || len(st.Model.Scenarios) != 1 {
				t.Fatalf("step %q has no prediction from the fit: %+v", st.Name, st.Model)
			}
		}
		// The one calibration's cost is recorded, and the report says it
		// came before the search.
		if c := sum.Calibrations; len(c) != 1 || c[0].Before != "" || c[0].Requests == 0 || c[0].Scenario != "page" {
			t.Fatalf("calibrations recorded: %+v", c)
		}
		if md := readText(t, filepath.Join(dir, "out", "report.md")); !strings.Contains(md, fmt.Sprintf("before the capacity search of %s: %d requests", s.Configuration, sum.Calibrations[0].Requests)) {
			t.Errorf("report.md does not say what the calibration before the search cost")
		}
		var miss string
		switch {
		case s.Predicted < 150 || s.Predicted > 230:
			miss = fmt.Sprintf("the fitted knee is %.1f/s, want 178 to 200 req/s", s.Predicted)
		case s.Rate < 0.75*s.Predicted || s.Rate > (1+s.Precision)*s.Predicted:
			miss = fmt.Sprintf("the search answered %.1f/s, the fitted knee is %.1f/s", s.Rate, s.Predicted)
		default:
			return
		}
		load := loadAverage(t)
		if load < 4 || attempt == 3 {
			t.Fatalf("%s (load average %.1f, attempt %d)\n%s", miss, load, attempt, stderr)
		}
		t.Logf("attempt %d could not judge, the machine was loaded (load average %.1f): %s", attempt, load, miss)
		if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
	}
}

// loadAverage is the machine's load average over the last minute.
func loadAverage(t *testing.T) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatalf("cannot tell whether the machine was loaded: %v", err)
	}
	f, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil {
		t.Fatalf("/proc/loadavg: %v", err)
	}
	return f
}

// TestRunFitStepBadInput: a calibration probe's length out of range is
// one line naming the flag, exit 2, before anything starts.
func TestRunFitStepBadInput(t *testing.T) {
	for _, v := range []string{"1h", "10ms", "-1s"} {
		code, _, stderr := runCLI(t, nil, "run", "-fit-step", v, "plan.yaml")
		if code != 2 || !strings.Contains(stderr, "-fit-step: want 100ms to 1m") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("-fit-step %s: exit %d, %q", v, code, stderr)
		}
	}
}
