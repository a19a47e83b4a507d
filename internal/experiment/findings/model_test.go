package findings

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/prediction"
)

// ms is a duration in milliseconds.
func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// modelledStep is a step of a saturated fixed pool with its prediction.
func modelledStep(measuredSuccess, measuredP99 float64) *summary.StepResult {
	lat := func(p50, p99 float64) metrics.LatencySummary {
		s50, s99 := ms(1000*p50), ms(1000*p99)
		return metrics.LatencySummary{Mean: s50, P50: s50, P90: s99, P95: s99, P99: s99, Max: s99}
	}
	return &summary.StepResult{
		Name: "80 rps, 64 workers", Configuration: "64 workers",
		Scenarios: []*summary.ScenarioResult{{Name: "search", Rate: "80/s", Requests: 960, Success: measuredSuccess,
			Latency: lat(1.47, measuredP99), StatusCodes: map[string]uint64{"200": 800, "500": 160}}},
		Pool:  &summary.PoolLimits{Pool: "default", Size: 64, CheckoutTimeout: 0.5, RequestTimeout: 2},
		Peaks: map[string]float64{"proxy cpu %": 4, "loadlab cpu %": 6},
		Model: &summary.StepModel{
			Scenarios: []prediction.Scenario{{Name: "search", Requests: 960, Success: 0.828,
				Latencies: metrics.LatencySummary{Mean: ms(1475), P50: ms(1475), P90: ms(1488), P95: ms(1488), P99: ms(1488), Max: ms(1488)},
				Answered:  map[string]uint64{"upstream": 795, "pool_timeout": 165}, MaxCheckoutWait: ms(487.5)}},
			Pools: []prediction.Pool{{Pool: "default", Manager: "serial", Size: 64, PeakInUse: 64, PeakWaiting: 40,
				MailboxPeak: 3, Timeouts: 165, CheckoutTimeout: ms(500), FirstTimeout: ms(2863)}},
			Closed: []prediction.ClosedForm{{Pool: "default", Workers: 64, Latency: ms(1000), Rate: 81, Capacity: 64, Step: ms(790), Rise: ms(210), Ceiling: ms(1500)}},
		},
	}
}

func TestModelExplainsAModelledStepInPlaceOfTheHeuristics(t *testing.T) {
	st := modelledStep(0.827, 1.498)
	sum := &summary.Summary{Steps: []*summary.StepResult{st}}
	fs := Compute(sum, Options{})
	var texts []string
	for _, f := range fs {
		if f.Heuristic && (f.Kind == summary.KindCause || f.Kind == summary.KindStaircase) {
			t.Errorf("a heuristic %s finding for a modelled step: %s", f.Kind, f.Text)
		}
		texts = append(texts, f.Kind+": "+f.Text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"prediction: The model's predictions, made before each step ran, held for 1 of 1 step scenarios",
		"model: In step \"80 rps, 64 workers\", the model (predicted search 82.80% success",
		"81 req/s is more than pool default's 64 workers carry with a 1s origin (W/L = 64.0 req/s)",
		"165 checkouts reached the 500ms checkout timeout",
		"latency stops at the ceiling 1.5s",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("findings lack %q:\n%s", want, all)
		}
	}
}

func TestModelNamesTheLikelyCauseOfAMiss(t *testing.T) {
	for _, c := range []struct {
		name  string
		tweak func(st *summary.StepResult)
		want  string
	}{
		{"generator behind", func(st *summary.StepResult) { st.Scenarios[0].MaxLag = 0.4 }, "the generator fell behind its schedule (lag up to 400ms"},
		{"proxy at 100%", func(st *summary.StepResult) { st.Peaks["proxy cpu %"] = 99 }, "the proxy used 99% of a core"},
		{"outside the pool", func(st *summary.StepResult) { st.Scenarios[0].Latency.Max = 3300 * time.Millisecond },
			"latency reached 3.3s where the pool's configuration allows at most 2.5s (checkout timeout 500ms + request timeout 2s): something outside the pool's configuration adds 800ms"},
		{"fragile", func(st *summary.StepResult) {
			st.Model.Fragile = []string{"100% of search's requests were decided on a tie"}
		},
			"the prediction was fragile (its requests met a configured bound within a hair"},
		{"unknown", func(*summary.StepResult) {}, "the system behaves in a way the model lacks"},
	} {
		st := modelledStep(0.60, 1.498)
		c.tweak(st)
		fs, ok := Model{}.Explain(&summary.Summary{Steps: []*summary.StepResult{st}}, st)
		if !ok {
			t.Fatalf("%s: the model did not cover the step", c.name)
		}
		var miss string
		for _, f := range fs {
			if f.Kind == summary.KindPrediction {
				miss = f.Text
			}
		}
		if !strings.Contains(miss, "success 60.00% where the model predicted 82.80%") || !strings.Contains(miss, c.want) {
			t.Errorf("%s: miss finding %q, want the gap and %q", c.name, miss, c.want)
		}
	}
}

func TestModelLeavesStepsItDoesNotCoverToTheHeuristics(t *testing.T) {
	st := modelledStep(0.827, 1.498)
	st.Model = &summary.StepModel{Error: "plan has no origin component"}
	if _, ok := (Model{}).Explain(&summary.Summary{Steps: []*summary.StepResult{st}}, st); ok {
		t.Error("a step the model could not model was claimed")
	}
	st.Model = modelledStep(0, 0).Model
	st.Scenarios = append(st.Scenarios, &summary.ScenarioResult{Name: "elsewhere", Requests: 10, Success: 1})
	if _, ok := (Model{}).Explain(&summary.Summary{Steps: []*summary.StepResult{st}}, st); ok {
		t.Error("a step with a scenario the model left out was claimed")
	}
}

// TestModelSaysAPredictionIsFragile: a step whose prediction the model
// marked fragile gets a finding saying so and why, whether or not the
// measurement agreed.
func TestModelSaysAPredictionIsFragile(t *testing.T) {
	st := modelledStep(0.827, 1.498)
	st.Model.Fragile = []string{"100% of search's requests were decided on a tie: 960 at the request timeout 1s of route search"}
	fs, _ := Model{}.Explain(&summary.Summary{Steps: []*summary.StepResult{st}}, st)
	for _, f := range fs {
		if f.Kind == summary.KindModel && strings.HasPrefix(f.Text, `In step "80 rps, 64 workers", the prediction is fragile: 100% of search's requests`) {
			return
		}
	}
	t.Errorf("no fragile finding in %+v", fs)
}
