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
			[]string{"It stopped at 2.19 s, which does not match checkout timeout 1.2 s + 0.5 s request timeout (1.7 s): 0.49 s of it is time the pool's configuration does not account for"}},
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

// The breaker example's flood (a pool of 8, a 0.5 s checkout timeout, a
// 1 s origin behind a cache): the first plateau is the cache's answers,
// not the origin's 1 s, and the failures are the breaker refusing at once,
// not checkout timeouts. The finding must say the figures do not match the
// pool's limits instead of adding a "0 s origin" and claiming a ceiling.
func TestStaircaseTextStatesMismatches(t *testing.T) {
	st := &summary.StepResult{Name: "flood at 40 rps", Pool: &summary.PoolLimits{Pool: "default", Size: 8, CheckoutTimeout: 0.5, RequestTimeout: 5, TimeoutStatus: 500},
		Peaks: map[string]float64{"proxy loadlab_proxy_pool_workers_in_use{pool=default}": 8}}
	st.Scenarios = []*summary.ScenarioResult{{Name: "foobar", RateActual: 40,
		Staircase: &summary.Staircase{Steps: 3, StepLength: 0.2, Increment: 0.45, Base: 0.0004, Top: 1.35, MaxOK: 1.48, Failures: 27, FailAt: 0.0003, FailStatus: "500"}}}
	got := text(staircases(&summary.Summary{Steps: []*summary.StepResult{st}}))
	for _, want := range []string{
		"(3 steps from 400µs)",
		"It stopped at 1.48 s, which does not match checkout timeout 0.5 s + the first plateau's 400µs (0.5 s): 0.98 s of it is time the pool's configuration does not account for",
		"27 later requests failed with 500 after ≈300µs, not after the 0.5 s checkout timeout: something other than the pool's queue failed them.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("finding lacks %q:\n%s", want, got)
		}
	}
	for _, wrong := range []string{"0 s origin", "= 0.5 s", "after ≈0 s", "(the checkout timeout)"} {
		if strings.Contains(got, wrong) {
			t.Errorf("finding says %q:\n%s", wrong, got)
		}
	}
	if fs := staircases(&summary.Summary{Steps: []*summary.StepResult{st}}); len(fs) != 1 || !fs[0].Heuristic || fs[0].Kind != summary.KindStaircase {
		t.Errorf("want one heuristic staircase finding, got %+v", fs)
	}
}
