package findings_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// TestFindingsOfGeneratorLag: a scenario whose generator lag p50 is above
// a tenth of its latency p50 gets a finding saying so and how to avoid
// it; one below does not; a pacer that fell back is named.
func TestFindingsOfGeneratorLag(t *testing.T) {
	mk := func(step string, lagP50, p50 time.Duration, fallback string) *summary.StepResult {
		h := runblock.LagHealth(lagP50, 2*lagP50, 4*p50)
		h.Pacer, h.PacerFallback = "precise", fallback
		if fallback != "" {
			h.Pacer = "batched"
		}
		return &summary.StepResult{Name: step, Configuration: "c", Scenarios: []*summary.ScenarioResult{{Name: "api", Requests: 1000, Success: 1,
			Latency: metrics.LatencySummary{P50: p50, P99: 4 * p50}, Health: &h}}}
	}
	sum := &summary.Summary{Steps: []*summary.StepResult{
		mk("1000/s", 20*time.Microsecond, 5*time.Millisecond, ""),
		mk("5000/s", 757*time.Microsecond, 950*time.Microsecond, "fell back to batching 2s into the attack: the median schedule lag stayed above 300µs for 1s"),
	}}
	var got []string
	for _, f := range findings.Compute(sum, findings.Options{}) {
		if f.Kind == summary.KindGenerator {
			got = append(got, f.Text)
		}
	}
	all := strings.Join(got, "\n")
	if len(got) != 2 || !strings.Contains(all, `In step "5000/s", scenario api, the load generator's own schedule lag (p50 757µs) is 80% of the latency p50 (950µs)`) ||
		!strings.Contains(all, "-pacer=precise") || strings.Contains(all, `"1000/s"`) ||
		!strings.Contains(all, `The precise pacer fell back to batching, so requests left up to a millisecond late, in step "5000/s", scenario api (fell back to batching 2s`) {
		t.Errorf("generator findings:\n%s", all)
	}
}
