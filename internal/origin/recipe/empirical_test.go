package recipe

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestEmpirical: draws from a measured distribution come back with its
// quantiles and mean (a bimodal one, 90% at 10 ms and 10% at 100 ms).
func TestEmpirical(t *testing.T) {
	var samples []time.Duration
	for i := range 1000 {
		d := 10 * time.Millisecond
		if i%10 == 0 {
			d = 100 * time.Millisecond
		}
		samples = append(samples, d)
	}
	e, err := NewEmpirical(samples, 100)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var slow int
	var sum time.Duration
	const n = 100000
	for range n {
		d := e.Sample(r)
		if d < 10*time.Millisecond || d > 100*time.Millisecond {
			t.Fatalf("draw %v outside the samples' range", d)
		}
		if d > 50*time.Millisecond {
			slow++
		}
		sum += d
	}
	if f := float64(slow) / n; f < 0.085 || f > 0.115 {
		t.Errorf("%.3f of draws above 50 ms, want about 0.10", f)
	}
	if m := sum / n; m < 17*time.Millisecond || m > 21*time.Millisecond {
		t.Errorf("mean of draws %v, want about 19 ms", m)
	}
	if m := e.Mean(); m < 17*time.Millisecond || m > 21*time.Millisecond {
		t.Errorf("Mean %v, want about 19 ms", m)
	}
	if _, err := NewEmpirical(nil, 10); err == nil {
		t.Error("no samples accepted")
	}
}
