package findings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

func text(fs []finding) string {
	var ts []string
	for _, f := range fs {
		ts = append(ts, f.Text)
	}
	return strings.Join(ts, "\n")
}

func TestStaircaseText(t *testing.T) {
	// As measured on a simulated pool of 12 workers holding each request
	// 1 s, fed 16 requests/s, with a 1.2 s checkout timeout.
	s := &summary.Staircase{Steps: 4, StepLength: 0.75, Increment: 0.25, Base: 1, Top: 2.1875, MaxOK: 2.1875, Failures: 25, FailAt: 1.2, FailStatus: "500"}
	sc := &summary.ScenarioResult{Name: "search", RateActual: 16, Staircase: s}
	pl := &summary.PoolLimits{Pool: "default", Size: 8, Overflow: 4, CheckoutTimeout: 1.2, RequestTimeout: 1.5, TimeoutStatus: 500}
	for _, tc := range []struct {
		name string
		st   *summary.StepResult
		want []string
	}{
		{"config and metrics", &summary.StepResult{Name: "16 rps", Pool: pl, Peaks: map[string]float64{"proxy loadlab_proxy_pool_workers_in_use{pool=default}": 12, "proxy loadlab_proxy_pool_overflow_workers_in_use{pool=default}": 4}},
			[]string{`In step "16 rps", search latency climbed in steps of ≈0.25 s every ≈0.75 s`, "0.75 s × 16 req/s = 12 ≈ the pool's 12 workers in use at the peak (8 + 4 overflow)",
				"It stopped at 2.19 s = checkout timeout 1.2 s + 1 s origin", "later requests failed with 500 after ≈1.2 s (the checkout timeout)."}},
		{"no metrics", &summary.StepResult{Name: "16 rps", Pool: pl}, []string{"12 requests per step, against a pool of 12 workers (8 + 4 overflow) (no pool metrics were sampled)"}},
		{"nothing known", &summary.StepResult{Name: "16 rps"}, []string{"requests per step (no pool metrics were sampled to compare with). It stopped at 2.19 s; "}},
		{"a request timeout shorter than the origin", &summary.StepResult{Name: "16 rps", Pool: &summary.PoolLimits{Size: 12, CheckoutTimeout: 1.2, RequestTimeout: 0.5}},
			[]string{"It stopped at 2.19 s against checkout timeout 1.2 s + 0.5 s request timeout = 1.7 s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Scenarios = []*summary.ScenarioResult{sc}
			got := text(staircases(&summary.Summary{Steps: []*summary.StepResult{tc.st}}))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("finding lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestPoolLimits(t *testing.T) {
	f := filepath.Join(t.TempDir(), "proxy.yaml")
	os.WriteFile(f, []byte(`pools:
  default: {size: 8, overflow: 4, checkout_timeout: 600ms}
routes:
  - {name: news, path: /news, upstream: "http://127.0.0.1:1", pool: {size: 2}, request_timeout: 2s}
  - {name: all, path: /*, upstream: "http://127.0.0.1:1", pool: default, request_timeout: 1500ms}
`), 0o644)
	for _, tc := range []struct {
		target string
		want   summary.PoolLimits
	}{
		{"GET http://127.0.0.1:9/search?q=1", summary.PoolLimits{Pool: "default", Size: 8, Overflow: 4, CheckoutTimeout: 0.6, RequestTimeout: 1.5, TimeoutStatus: 500}},
		{"GET http://127.0.0.1:9/news", summary.PoolLimits{Pool: "route:news", Size: 2, CheckoutTimeout: 6, RequestTimeout: 2, TimeoutStatus: 500}},
	} {
		got := PoolLimits(f, tc.target)
		if got == nil || *got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.target, got, tc.want)
		}
	}
	if PoolLimits(filepath.Join(t.TempDir(), "missing.yaml"), "GET /") != nil {
		t.Error("a missing config gave limits")
	}
}
