package findings_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment"
	"github.com/loadlab/loadlab/internal/experiment/demo"
	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
)

// ../testdata/demo-summary.json is the summary.json of a real `loadlab demo`
// run on a 2-core machine: with a serial (poolboy) pool manager, both pools
// hold at 40 req/s; at 69 and 80 req/s the overflow pool collapses because
// its manager cannot start workers fast enough, while the fixed pool holds
// near its 64 workers.
func TestFindingsOfDemoRun(t *testing.T) {
	p, err := demo.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "demo")
	got := texts(p, sum)
	for _, want := range []string{
		"At 69 req/s, 64 workers, no overflow did better: search had 95.29% success with p99 1.499s, while 32 workers + 256 overflow fell to 19.57%",
		"Why: the pool manager is a single goroutine",
		"It could start only about 50 workers/s while 70 requests/s arrived, so its mailbox grew to 418 messages",
		"past the checkout timeout (52 checkout timeouts/s, each a 500). At 41 requests/s it had kept up (35 starts/s, mailbox peak 3). 64 workers, no overflow never starts or dismisses a worker, and its mailbox peaked at 3.",
		"news, requested at only 1/s through the same proxy, fell to 16.67% success at 80 req/s",
		"Cost: at 40 req/s, where both held, 32 workers + 256 overflow opened 38 upstream connections/s against 3/s for 64 workers, no overflow (proxy CPU 6.0% vs 3.8% of a core",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
}

// ../testdata/alike-summary.json is a real run of the earlier demo (16 + 48
// overflow vs 64 fixed at 40, 64 and 80 req/s) with the concurrent manager,
// whose overflow workers cost nothing: both pools run out of workers alike.
func TestFindingsOfAlikeRun(t *testing.T) {
	p, err := demo.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "alike")
	got := texts(p, sum)
	for _, want := range []string{
		"performed alike at every load",
		"search held at 64 req/s for all of them and fell alike at 80 req/s (87.50% success",
		"news, requested at only 1/s through the same proxy, fell to 40.00% success at 80 req/s",
		"Cost: at 40 req/s, where both held, 16 workers + 48 overflow opened 24 upstream connections/s",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}

	// Make the fixed pool hold at 80 req/s: the findings must say it held
	// and why, from the pool metrics (no mailbox sampled: workers in use).
	for _, st := range sum.Steps {
		if strings.HasPrefix(st.Name, "80 rps, 64") {
			st.Scenarios[0].Success, st.Scenarios[0].Latency.P99 = 1, 1010*time.Millisecond
		}
	}
	got = texts(p, sum)
	for _, want := range []string{
		"At 80 req/s, 64 workers, no overflow held: search kept 100.00% success with p99 1.01s, while 16 workers + 48 overflow fell to 87.50%",
		"Why: with 16 workers + 48 overflow the pool peaked at 64 workers in use",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
}

// readSummary reads a summary.json fixture: the summaries of real runs in
// ../testdata, written before summaries recorded the plan's shape.
func readSummary(t *testing.T, name string) *summary.Summary {
	t.Helper()
	data, err := os.ReadFile("../testdata/" + name + "-summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	return &sum
}

// texts computes the findings of sum, run with plan p, as one text.
func texts(p *plan.Plan, sum *summary.Summary) string {
	sum.Design = experiment.Design(p)
	return strings.Join(summary.Texts(findings.Compute(sum, findings.Options{})), "\n")
}

func TestFindingsOfSweep(t *testing.T) {
	mk := func(name string, success, p99 float64) *summary.StepResult {
		return &summary.StepResult{Name: name, Configuration: name, Scenarios: []*summary.ScenarioResult{{Name: "info", Requests: 100, Success: success, Latency: metrics.LatencySummary{P99: time.Duration(p99 * float64(time.Second))}}}}
	}
	sum := &summary.Summary{Steps: []*summary.StepResult{mk("8 rps", 1, 0.01), mk("16 rps", 0.995, 0.02), mk("32 rps", 0.3, 13)}}
	sum.Steps[1].Deaths = nil
	got := texts(&plan.Plan{}, sum)
	if !strings.Contains(got, `info held up to step "16 rps" (99.50% success, p99 20ms); at step "32 rps" success fell to 30.00% and p99 rose to 13s`) {
		t.Errorf("got %q", got)
	}
}

func TestFindingsOfRegressionHunt(t *testing.T) {
	mk := func(build string, p99 float64) *summary.StepResult {
		return &summary.StepResult{Name: "build " + build, Configuration: "build " + build, Vars: map[string]string{"build": build},
			Scenarios: []*summary.ScenarioResult{{Name: "page", Requests: 800, Success: 1, Latency: metrics.LatencySummary{P99: time.Duration(p99 * float64(time.Second))}}}}
	}
	sum := &summary.Summary{Steps: []*summary.StepResult{mk("02-03", 0.015), mk("02-04", 1.98), mk("02-05", 1.59), mk("02-17", 0.016)}}
	p := &plan.Plan{Axes: []plan.Axis{{Key: "build", Component: true, Values: []string{"02-03", "02-04", "02-05", "02-17"}}},
		Components: []*plan.Component{{Name: "build", Variants: []*plan.Variant{{Name: "02-03"}, {Name: "02-04"}, {Name: "02-05"}, {Name: "02-17"}}}}}
	got := texts(p, sum)
	want := "Success was alike, latency was not: p99 of page by configuration, in run order: build 02-03 15ms, build 02-04 1.98s, build 02-05 1.59s, build 02-17 16ms. The first to regress (p99 at least 1.5× the best) is build 02-04, 132.0× slower"
	if !strings.Contains(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// ../testdata/breaker-summary.json is a real run of examples/002.
func TestFindingsOfBreakerRun(t *testing.T) {
	sum := readSummary(t, "breaker")
	got := texts(&plan.Plan{}, sum)
	for _, want := range []string{`foobar held up to step "warm the cache at 4 rps"`, `In step "flood at 40 rps" the pool drained (up to 20 requests waiting`, "then the circuit breaker opened", "stale copies were served as fallbacks (up to 35/s"} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
}

// ../testdata/sweep-summary.json is a real run of examples/001.
func TestFindingsOfSweepPerEndpoint(t *testing.T) {
	p, err := plan.Load("../../../examples/001-step-sweep/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "sweep")
	got := texts(p, sum)
	// A matrix cell reads as a label: the endpoint as the path it
	// requests, the rate after it; the comparison never a cell with itself.
	for _, want := range []string{
		"Limits (last rate with at least 99% success): ruby (2 workers), /v3/info held up to 128/s and fell at 512/s (60.35%); ruby (2 workers), /v3/buildpacks held up to 32/s and fell at 128/s (60.42%); go (64 workers), /v3/info held at every rate measured, up to 512/s; go (64 workers), /v3/buildpacks held at every rate measured, up to 512/s.",
		"On /v3/buildpacks at 512/s, go (64 workers) held: api kept 100.00% success with p99 845.15ms, while ruby (2 workers) fell to 11.98%",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	}
}

// ../testdata/disturbed-summary.json is a run of examples/000 during which the
// shared machine stalled the generator in step 4.
func TestFindingsLeaveOutDisturbedSteps(t *testing.T) {
	p, err := plan.Load("../../../examples/000-incident-replay/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "disturbed")
	got := texts(p, sum)
	if !strings.Contains(got, `Left out of the comparisons, because the load generator could not keep its schedule (a busy machine; re-run them): "48 rps, 64 workers, no overflow" (131 search requests not sent)`) {
		t.Errorf("disturbed step not named:\n%s", got)
	}
	if strings.Contains(got, "86.35") || strings.Contains(got, "4.815s") {
		t.Errorf("the disturbed step's figures were used:\n%s", got)
	}
}

// Requests dropped at max_workers are the target's backlog, not a stalled
// generator: the same run, its drops marked as max_workers drops, keeps the
// step and says what happened.
func TestFindingsKeepStepsDroppedAtMaxWorkers(t *testing.T) {
	p, err := plan.Load("../../../examples/000-incident-replay/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "disturbed")
	marked := 0
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			sc.MaxLag = 0 // the run was also late: only the drops are under test
			if sc.Dropped > 0 {
				sc.DroppedAtMaxWorkers = sc.Dropped
				marked++
			}
		}
	}
	if marked == 0 {
		t.Fatal("the run has no drops to mark")
	}
	got := texts(p, sum)
	if strings.Contains(got, "Left out of the comparisons") {
		t.Errorf("a step whose drops were at max_workers was left out:\n%s", got)
	}
	if !strings.Contains(got, `The target held max_workers requests unanswered, so later ones were not sent and count as failures: "48 rps, 64 workers, no overflow" (131 search requests)`) {
		t.Errorf("the max_workers drops are not named:\n%s", got)
	}
}

// ../testdata/staircase-summary.json is a real run of examples/003 on a
// 2-core machine: the staircase at 16 and 24 req/s with a 1.2 s checkout
// timeout and at 16 req/s with 0.6 s; at 24 req/s with 0.6 s the ceiling
// comes after a single step, and at 8 req/s latency is a flat 1 s.
func TestFindingsOfStaircaseRun(t *testing.T) {
	p, err := plan.Load("../../../examples/003-pool-staircase/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "staircase")
	got := texts(p, sum)
	for _, want := range []string{
		`In step "16 rps, checkout timeout 1.2s", search latency climbed in steps of ≈0.26 s every ≈0.75 s (4 steps from 1.01 s); 0.75 s × 16 req/s = 12 ≈ the pool's 12 workers in use at the peak (8 + 4 overflow)`,
		"It stopped at 2.29 s = checkout timeout 1.2 s + 1.01 s origin; 27 later requests failed with 500 after ≈1.2 s (the checkout timeout).",
		`In step "24 rps, checkout timeout 1.2s", search latency climbed in steps of ≈0.54 s every ≈0.5 s (2 steps from 1.02 s); 0.5 s × 24 req/s = 12 ≈`,
		`In step "16 rps, checkout timeout 0.6s", search latency climbed in steps of ≈0.25 s every ≈0.75 s`,
		"It stopped at 1.6 s = checkout timeout 0.6 s + 1 s origin; 32 later requests failed with 500 after ≈0.6 s (the checkout timeout).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	for _, not := range []string{`"8 rps, checkout timeout 1.2s", search latency climbed`, `"24 rps, checkout timeout 0.6s", search latency climbed`} {
		if strings.Contains(got, not) {
			t.Errorf("findings state a staircase that is not there (%s):\n%s", not, got)
		}
	}
}

// predictor stands in for a model that covers one step: it explains that
// step and leaves the others to the heuristics.
type predictor struct{ step string }

func (p predictor) Explain(_ *summary.Summary, st *summary.StepResult) ([]findings.Finding, bool) {
	if st.Name != p.step {
		return nil, false
	}
	return []findings.Finding{{Kind: summary.KindStaircase, Text: "The model: " + st.Name}}, true
}

// A Predictor's findings replace the heuristic explanations of the steps
// it covers, and only those.
func TestPredictorReplacesHeuristics(t *testing.T) {
	p, err := plan.Load("../../../examples/003-pool-staircase/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "staircase")
	sum.Design = experiment.Design(p)
	const covered = "16 rps, checkout timeout 1.2s"
	all := findings.Compute(sum, findings.Options{})
	got := findings.Compute(sum, findings.Options{Predictor: predictor{covered}})
	heuristic := func(fs []findings.Finding, step string) int {
		n := 0
		for _, f := range fs {
			if f.Heuristic && strings.Contains(f.Text, "step \""+step+"\"") {
				n++
			}
		}
		return n
	}
	if heuristic(all, covered) == 0 || heuristic(got, covered) != 0 {
		t.Errorf("heuristics for the covered step: %d without a model, %d with", heuristic(all, covered), heuristic(got, covered))
	}
	if other := "24 rps, checkout timeout 1.2s"; heuristic(got, other) != heuristic(all, other) || heuristic(got, other) == 0 {
		t.Errorf("the uncovered step lost its heuristics: %d of %d", heuristic(got, other), heuristic(all, other))
	}
	if last := got[len(got)-1]; last.Text != "The model: "+covered || last.Heuristic {
		t.Errorf("model finding missing: %+v", got)
	}
	for _, f := range all {
		if f.Kind == "" || (f.Kind == summary.KindStaircase) != strings.Contains(f.Text, "latency climbed") {
			t.Errorf("finding of kind %q: %s", f.Kind, f.Text)
		}
	}
}

// ../testdata/capacity-summary.json is a real run of examples/005 (a
// capacity search per pool, on a loaded 2-core machine): its probes run at
// rates of the search's choosing, so no finding compares them as
// configurations at one load or as a sweep, and none compares a
// configuration with itself.
func TestFindingsOfCapacitySearch(t *testing.T) {
	p, err := plan.Load("../../../examples/005-capacity-search/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "capacity")
	sum.Design = experiment.Design(p)
	fs := findings.Compute(sum, findings.Options{})
	if len(fs) == 0 || fs[0].Kind != summary.KindSearch || !strings.Contains(fs[0].Text, "16 workers: 57.8 req/s ± 2%") {
		t.Fatalf("the first finding is not the search's answer: %+v", fs)
	}
	for _, f := range fs {
		if f.Kind == summary.KindComparison || f.Kind == summary.KindSweep {
			t.Errorf("a %s finding of a capacity search: %s", f.Kind, f.Text)
		}
		for _, conf := range []string{"16 workers", "8 workers + 64 overflow"} {
			if strings.Contains(f.Text, conf+" held") && strings.Contains(f.Text, "while "+conf+" fell") {
				t.Errorf("compares %s with itself: %s", conf, f.Text)
			}
		}
	}
}
