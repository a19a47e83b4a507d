package model

import (
	"testing"
	"time"
)

// The pool staircase: a pool of W workers in front of an origin answering
// in L, flooded at R above W / L. The simulation must give each batch of W
// requests the closed form's wait, k (L - W / R), and stop at the ceiling.
func TestSimulationAgreesWithStaircaseClosedForm(t *testing.T) {
	for _, manager := range []string{"serial", "concurrent"} {
		for _, rate := range []float64{160, 180, 300} {
			const w, L = 768, 5 * time.Second
			cfg := proxyConfig(t, poolYAML(512, 256, 6*time.Second, 5100*time.Millisecond, manager))
			in := Input{Proxy: cfg, Origin: recipes(t, fixedRecipe("5s", 200)), Seed: 1,
				Scenarios: []Scenario{scenario(t, "flood", "GET http://proxy.model.invalid/search", ratef(rate), 60*time.Second, 30*time.Second)}}
			// A worker is held for the origin's latency plus the exchange's
			// own cost (see Costs.Exchange): that is the L of the formulas.
			hold := L + DefaultCosts.Exchange
			cf := Closed(cfg.Pools["default"], cfg.Routes[0].RequestTimeout.D(), hold, rate)
			checked, maxLatency := 0, time.Duration(0)
			in.observe = func(_ string, seq uint64, due, latency time.Duration, code int) {
				maxLatency = max(maxLatency, latency)
				k := time.Duration(seq / w)
				want := hold + k*cf.Rise
				if code != 200 || want >= cf.Ceiling-time.Second {
					return
				}
				checked++
				if d := latency - want; d < -time.Millisecond || d > 5*time.Millisecond {
					t.Fatalf("%s at %v/s: request %d (batch %d) took %v, closed form %v", manager, rate, seq, k, latency, want)
				}
			}
			p, err := Predict(in)
			if err != nil {
				t.Fatal(err)
			}
			if checked < w {
				t.Fatalf("%s at %v/s: only %d requests checked against the staircase", manager, rate, checked)
			}
			if maxLatency > cf.Ceiling+5*time.Millisecond {
				t.Errorf("%s at %v/s: max latency %v above the ceiling %v", manager, rate, maxLatency, cf.Ceiling)
			}
			s := p.Scenarios[0]
			// Where the queue reaches the ceiling within the step, it stops
			// there and the pool times requests out.
			reaches := time.Duration(float64(cf.Ceiling-L)/float64(cf.Rise)) * cf.Step
			if reaches < 50*time.Second {
				if maxLatency < cf.Ceiling-50*time.Millisecond {
					t.Errorf("%s at %v/s: max latency %v never reached the ceiling %v", manager, rate, maxLatency, cf.Ceiling)
				}
				if s.Answered[byPoolTimeout] == 0 {
					t.Errorf("%s at %v/s: no pool timeout though the queue reached the ceiling", manager, rate)
				}
			} else if s.Success != 1 {
				t.Errorf("%s at %v/s: success %v before the queue reaches the ceiling", manager, rate, s.Success)
			}
		}
	}
}

// Below the capacity W / L no request waits; above it the success ratio
// is bounded by what the pool can carry in the timeouts' horizon.
func TestSimulationAgreesWithCapacity(t *testing.T) {
	cfg := proxyConfig(t, poolYAML(100, 0, 500*time.Millisecond, 5*time.Second, "concurrent"))
	cf := Closed(cfg.Pools["default"], 5*time.Second, time.Second, 0)
	if cf.Capacity != 100 {
		t.Fatalf("capacity %v, want 100/s", cf.Capacity)
	}
	for _, c := range []struct {
		rate     float64
		min, max float64
	}{
		{95, 1, 1},
		{200, 0.48, 0.52}, // the pool serves 100 of every 200 each second
		{400, 0.24, 0.26},
	} {
		in := Input{Proxy: cfg, Origin: recipes(t, fixedRecipe("1s", 200)), Seed: 1,
			Scenarios: []Scenario{scenario(t, "s", "GET http://proxy.model.invalid/x", ratef(c.rate), 60*time.Second, 10*time.Second)}}
		p, err := Predict(in)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Scenarios[0]
		if s.Success < c.min || s.Success > c.max {
			t.Errorf("at %v/s (capacity %v/s): success %.4f, want [%v, %v]", c.rate, cf.Capacity, s.Success, c.min, c.max)
		}
		if c.rate < cf.Capacity && s.MaxCheckoutWait != 0 {
			t.Errorf("at %v/s below capacity: a request waited %v", c.rate, s.MaxCheckoutWait)
		}
	}
}

func ratef(r float64) string { return formatRate(r) }
