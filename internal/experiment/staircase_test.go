package experiment

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/results"
)

// pool simulates a pool of w workers, each held for service seconds, fed
// rate requests/s for dur seconds, with a checkout timeout (0: none):
// requests wait in line for the first free worker, and fail with 500 after
// the timeout. jitter adds uniform noise to every latency.
func pool(w int, service, rate, dur, timeout, jitter float64, seed int64) []point {
	free := make([]float64, w)
	rnd := rand.New(rand.NewSource(seed))
	var pts []point
	for i := 0; float64(i)/rate < dur; i++ {
		at := float64(i) / rate
		k := 0
		for j := range free {
			if free[j] < free[k] {
				k = j
			}
		}
		start := max(at, free[k])
		noise := jitter * (rnd.Float64() - 0.5)
		if timeout > 0 && start-at > timeout {
			pts = append(pts, point{t: float32(at), lat: float32(timeout + noise), code: 500})
			continue
		}
		free[k] = start + service
		pts = append(pts, point{t: float32(at), lat: float32(start - at + service + noise), code: 200, ok: true})
	}
	return pts
}

func TestMeasureStaircase(t *testing.T) {
	flat := pool(12, 1, 8, 10, 1.2, 0.01, 1)
	jump := pool(12, 1, 8, 10, 0, 0.01, 1)
	for i := range jump {
		if jump[i].t >= 5 {
			jump[i].lat += 0.5 // one jump: the origin slowed down once
		}
	}
	noisy := pool(12, 1, 16, 10, 1.2, 0.04, 2)
	for i := 0; i < len(noisy); i += 17 {
		noisy[i].lat += 0.3 // an outlier now and then
	}
	random := make([]point, 200)
	rnd := rand.New(rand.NewSource(3))
	for i := range random {
		random[i] = point{t: float32(i) / 20, lat: float32(0.5 + rnd.Float64()), code: 200, ok: true}
	}
	for _, tc := range []struct {
		name             string
		pts              []point
		want             bool
		step, inc, maxOK float64
		failures, failAt float64
		failStatus       string
		minSteps         int
	}{
		{name: "clean staircase, 16 req/s", pts: pool(12, 1, 16, 10, 1.2, 0, 1), want: true, step: 0.75, inc: 0.25, maxOK: 2.2, failAt: 1.2, failStatus: "500", minSteps: 3},
		{name: "clean staircase, 24 req/s", pts: pool(12, 1, 24, 10, 1.2, 0, 1), want: true, step: 0.5, inc: 0.5, maxOK: 2.2, failAt: 1.2, failStatus: "500", minSteps: 2},
		{name: "the seed: 768 workers, 5 s, 160 req/s, 6 s checkout", pts: pool(768, 5, 160, 160, 6, 0.02, 1), want: true, step: 4.8, inc: 0.2, maxOK: 11, failAt: 6, failStatus: "500", minSteps: 5},
		{name: "noise and outliers", pts: noisy, want: true, step: 0.75, inc: 0.25, maxOK: 2.2, failAt: 1.2, failStatus: "500", minSteps: 3},
		{name: "flat 1 s", pts: flat},
		{name: "single jump", pts: jump},
		{name: "random latencies", pts: random},
		{name: "too few requests", pts: pool(12, 1, 16, 0.5, 0, 0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := measureStaircase(tc.pts)
			if !tc.want {
				if s != nil {
					t.Fatalf("found a staircase where there is none: %+v", *s)
				}
				return
			}
			if s == nil {
				t.Fatal("no staircase found")
			}
			within := func(what string, got, want float64) {
				if math.Abs(got-want) > 0.08*want {
					t.Errorf("%s = %.3f, want ≈%.3f (%+v)", what, got, want, *s)
				}
			}
			within("step length", s.StepLength, tc.step)
			within("increment", s.Increment, tc.inc)
			within("max ok", s.MaxOK, tc.maxOK)
			within("failures at", s.FailAt, tc.failAt)
			if s.FailStatus != tc.failStatus || s.Failures == 0 || s.Steps < tc.minSteps {
				t.Errorf("failures %d with %q, steps %d: %+v", s.Failures, s.FailStatus, s.Steps, *s)
			}
		})
	}
}

func TestStaircaseText(t *testing.T) {
	s := measureStaircase(pool(12, 1, 16, 10, 1.2, 0, 1))
	if s == nil {
		t.Fatal("no staircase")
	}
	sc := &ScenarioResult{Name: "search", RateActual: 16, Staircase: s}
	pl := &PoolLimits{Pool: "default", Size: 8, Overflow: 4, CheckoutTimeout: 1.2, RequestTimeout: 1.5, TimeoutStatus: 500}
	for _, tc := range []struct {
		name string
		st   *StepResult
		want []string
	}{
		{"config and metrics", &StepResult{Name: "16 rps", Pool: pl, Peaks: map[string]float64{"proxy loadlab_proxy_pool_workers_in_use{pool=default}": 12, "proxy loadlab_proxy_pool_overflow_workers_in_use{pool=default}": 4}},
			[]string{`In step "16 rps", search latency climbed in steps of ≈0.25 s every ≈0.75 s`, "0.75 s × 16 req/s = 12 ≈ the pool's 12 workers in use at the peak (8 + 4 overflow)",
				"It stopped at 2.19 s = checkout timeout 1.2 s + 1 s origin", "later requests failed with 500 after ≈1.2 s (the checkout timeout)."}},
		{"no metrics", &StepResult{Name: "16 rps", Pool: pl}, []string{"12 requests per step, against a pool of 12 workers (8 + 4 overflow) (no pool metrics were sampled)"}},
		{"nothing known", &StepResult{Name: "16 rps"}, []string{"requests per step (no pool metrics were sampled to compare with). It stopped at 2.19 s; "}},
		{"a request timeout shorter than the origin", &StepResult{Name: "16 rps", Pool: &PoolLimits{Size: 12, CheckoutTimeout: 1.2, RequestTimeout: 0.5}},
			[]string{"It stopped at 2.19 s against checkout timeout 1.2 s + 0.5 s request timeout = 1.7 s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Scenarios = []*ScenarioResult{sc}
			got := strings.Join(staircases(&Summary{Steps: []*StepResult{tc.st}}), "\n")
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
		want   PoolLimits
	}{
		{"GET http://127.0.0.1:9/search?q=1", PoolLimits{Pool: "default", Size: 8, Overflow: 4, CheckoutTimeout: 0.6, RequestTimeout: 1.5, TimeoutStatus: 500}},
		{"GET http://127.0.0.1:9/news", PoolLimits{Pool: "route:news", Size: 2, CheckoutTimeout: 6, RequestTimeout: 2, TimeoutStatus: 500}},
	} {
		got := poolLimits(f, targetPath(tc.target))
		if got == nil || *got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.target, got, tc.want)
		}
	}
	if poolLimits(filepath.Join(t.TempDir(), "missing.yaml"), "/") != nil {
		t.Error("a missing config gave limits")
	}
}

// testdata/staircase-summary.json is a real run of examples/003 on a
// 2-core machine: the staircase at 16 and 24 req/s with a 1.2 s checkout
// timeout and at 16 req/s with 0.6 s; at 24 req/s with 0.6 s the ceiling
// comes after a single step, and at 8 req/s latency is a flat 1 s.
func TestFindingsOfStaircaseRun(t *testing.T) {
	p, err := plan.Load("../../examples/003-pool-staircase/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, "testdata/staircase-summary.json")
	got := strings.Join(findings(p, sum), "\n")
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

// testdata/staircase/*.lll are the results streams of that run: the
// staircase is measured from them again, step by step.
func TestMeasureStaircaseOfRealStreams(t *testing.T) {
	for _, tc := range []struct {
		file      string
		want      bool
		step, inc float64
		maxOK     float64
	}{
		{file: "01-8-rps-checkout-timeout-1-2s.lll"},
		{file: "02-16-rps-checkout-timeout-1-2s.lll", want: true, step: 0.75, inc: 0.25, maxOK: 2.2},
		{file: "03-24-rps-checkout-timeout-1-2s.lll", want: true, step: 0.5, inc: 0.5, maxOK: 2.2},
		{file: "04-8-rps-checkout-timeout-0-6s.lll"},
		{file: "05-16-rps-checkout-timeout-0-6s.lll", want: true, step: 0.75, inc: 0.25, maxOK: 1.6},
		{file: "06-24-rps-checkout-timeout-0-6s.lll"}, // one step, then the 1.6 s ceiling
	} {
		t.Run(tc.file, func(t *testing.T) {
			src, err := results.Open(filepath.Join("testdata/staircase", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var tl timeline
			for {
				var r results.Result
				if err := src.Decode(&r); err != nil {
					break
				}
				tl.Add(&r)
			}
			if len(tl.pts) < 80 {
				t.Fatalf("read only %d results", len(tl.pts))
			}
			s := measureStaircase(tl.pts)
			if s == nil || !tc.want {
				if (s != nil) != tc.want {
					t.Fatalf("staircase %+v, want one: %v", s, tc.want)
				}
				return
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"step length", s.StepLength, tc.step}, {"increment", s.Increment, tc.inc}, {"max ok", s.MaxOK, tc.maxOK}} {
				if math.Abs(c.got-c.want) > 0.1*c.want {
					t.Errorf("%s = %.3f, want ≈%.3f (%+v)", c.what, c.got, c.want, *s)
				}
			}
		})
	}
}
