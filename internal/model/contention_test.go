package model

import (
	"math"
	"testing"
	"time"
)

// TestContentionSlowsTheOrigin: N users straight at an origin answering
// in 40 ms with contention σ 0.05, κ 0.01 keep N requests in service, so
// each takes 40 ms × (1 + σ(N−1) + κN(N−1)) and the throughput is the
// USL's N / that; behind a pool of 4 workers, 8 users see the slowdown
// of 4 in service only (the others wait for a worker).
func TestContentionSlowsTheOrigin(t *testing.T) {
	rs := recipes(t, `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "40ms", "contention": {"sigma": 0.05, "kappa": 0.01}}]}`)
	usl := func(n float64) float64 { return 1 + 0.05*(n-1) + 0.01*n*(n-1) }
	const d = 20 * time.Second
	for _, n := range []int{1, 2, 8} {
		sc := scenario(t, "users", "GET http://origin.model.invalid/", "0", d, 5*time.Second)
		sc.ToProxy, sc.Workers = []bool{false}, n
		pr, err := Predict(Input{Origin: rs, Seed: 1, Scenarios: []Scenario{sc}})
		if err != nil {
			t.Fatal(err)
		}
		sp := pr.Scenarios[0]
		x := float64(sp.Requests) / d.Seconds()
		wantX := float64(n) / (0.040 * usl(float64(n)))
		wantP50 := time.Duration(float64(40*time.Millisecond) * usl(float64(n)))
		if math.Abs(x-wantX) > 0.03*wantX || (sp.Latencies.P50-wantP50).Abs() > wantP50/30 {
			t.Errorf("%d users: %.1f/s at p50 %v, want %.1f/s at %v", n, x, sp.Latencies.P50, wantX, wantP50)
		}
	}
	sc := scenario(t, "users", "GET http://proxy.model.invalid/", "0", d, 5*time.Second)
	sc.Workers = 8
	pr, err := Predict(Input{Proxy: proxyConfig(t, poolYAML(4, 0, 5*time.Second, 5*time.Second, "concurrent")), Origin: rs, Seed: 1, Scenarios: []Scenario{sc}})
	if err != nil {
		t.Fatal(err)
	}
	x := float64(pr.Scenarios[0].Requests) / d.Seconds()
	if want := 4 / (0.040 * usl(4)); math.Abs(x-want) > 0.03*want {
		t.Errorf("8 users through 4 workers: %.1f/s, want %.1f/s (4 in service)", x, want)
	}
}
