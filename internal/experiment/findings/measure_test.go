package findings

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
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
			tl, err := readTimeline(filepath.Join("testdata/staircase", tc.file))
			if err != nil {
				t.Fatal(err)
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

// testdata/queue-ramp/*.lll are two steps of a real run of the step-sweep
// example: a pool of 2 workers fed 512 and 128 requests/s. The queue grows
// steadily until the checkout timeout: a ramp, not a staircase.
func TestQueueRampIsNoStaircase(t *testing.T) {
	for _, file := range []string{"ruby-info-512.lll", "ruby-buildpacks-128.lll"} {
		t.Run(file, func(t *testing.T) {
			tl, err := readTimeline(filepath.Join("testdata/queue-ramp", file))
			if err != nil {
				t.Fatal(err)
			}
			if len(tl.pts) < 300 {
				t.Fatalf("read only %d results", len(tl.pts))
			}
			if s := measureStaircase(tl.pts); s != nil {
				t.Errorf("a queue ramp taken for a staircase: %+v", *s)
			}
		})
	}
	// The same ramp, simulated: 2 workers of 30 ms at 128/s, 1 s timeout.
	if s := measureStaircase(pool(2, 0.03, 128, 3, 1, 0.002, 1)); s != nil {
		t.Errorf("a simulated queue ramp taken for a staircase: %+v", *s)
	}
}

// MeasureStaircases measures every scenario's staircase from the run
// folder's streams, replacing what the summary held: a ramp an older
// analysis called a staircase loses it, a real staircase is found, a
// missing stream leaves none.
func TestMeasureStaircasesOfAFolder(t *testing.T) {
	scenario := func(stream string) *summary.ScenarioResult {
		return &summary.ScenarioResult{Name: "search", Results: stream, Staircase: &summary.Staircase{Steps: 24}}
	}
	sum := &summary.Summary{Steps: []*summary.StepResult{
		{Name: "ramp", Scenarios: []*summary.ScenarioResult{scenario("queue-ramp/ruby-info-512.lll")}},
		{Name: "stairs", Scenarios: []*summary.ScenarioResult{scenario("staircase/02-16-rps-checkout-timeout-1-2s.lll")}},
		{Name: "gone", Scenarios: []*summary.ScenarioResult{scenario("missing.lll")}},
	}}
	MeasureStaircases("testdata", sum)
	if s := sum.Steps[0].Scenarios[0].Staircase; s != nil {
		t.Errorf("ramp: %+v", *s)
	}
	if s := sum.Steps[1].Scenarios[0].Staircase; s == nil || s.Steps < 3 || math.Abs(s.StepLength-0.75) > 0.075 {
		t.Errorf("stairs: %+v", s)
	}
	if s := sum.Steps[2].Scenarios[0].Staircase; s != nil {
		t.Errorf("missing stream: %+v", *s)
	}
}
