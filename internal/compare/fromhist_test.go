package compare

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// A run rebuilt from its stored histogram (what the run archive keeps)
// has the run's figures to the histogram's precision, and compares as the
// run would: no difference against another run of the same distribution,
// a real one against a slower run.
func TestRunFromHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	orig, other, slow := NewRun("orig", 0), NewRun("other", 0), NewRun("slow", 0)
	for i := range 2000 {
		d := time.Duration(10e6 * math.Exp(0.3*rng.NormFloat64()))
		orig.Record(d, i%100 != 0)
		other.Record(time.Duration(10e6*math.Exp(0.3*rng.NormFloat64())), i%100 != 50)
		slow.Record(d*11/10, true)
	}
	opt := Options{Resamples: 300}
	l := orig.Latencies()
	re := NewRunFromHistogram("rebuilt", l.Histogram(), uint64(orig.N()), uint64(orig.OK()))
	rl := re.Latencies()
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99} {
		if a, b := l.Quantile(q), rl.Quantile(q); math.Abs(float64(a-b)) > 0.001*float64(a) {
			t.Errorf("q%.2f: %v rebuilt as %v", q, a, b)
		}
	}
	if math.Abs(float64(l.Mean-rl.Mean)) > 0.001*float64(l.Mean) || re.N() != 2000 || re.OK() != 1980 {
		t.Errorf("mean %v rebuilt as %v; %d requests, %d ok", l.Mean, rl.Mean, re.N(), re.OK())
	}
	for _, s := range []Stat{Mean, P50, P90, P95, P99, Success} {
		same := CompareStat(re, other, s, opt)
		if same.Verdict != NoDiff || same.P < 0.05 {
			t.Errorf("%s against a run of the same distribution: %+v", s, same)
		}
	}
	for _, s := range []Stat{Mean, P50, P95} {
		r := CompareStat(re, slow, s, Options{Resamples: 300, Confidence: 0.99})
		if r.Verdict != Slower || r.Rel < 0.07 || r.Rel > 0.13 || r.P > 0.01 || r.Lo <= 0 {
			t.Errorf("%s against 10%% slower: %+v", s, r)
		}
	}
	if r := CompareStat(re, slow, Success, opt); r.Verdict != Better {
		t.Errorf("success 99%% against 100%%: %+v", r)
	}
}

func TestBootstrapP(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 2, 3}, 2.0 / 4},            // all above: 2·(0+1)/4
		{[]float64{-2, -1, 1, 2}, 1},             // half each side
		{[]float64{-1, 0, 1, 2, 3}, 2 * 2.0 / 6}, // one below, one tie (half), three above
	} {
		if got := bootstrapP(tc.xs); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: p %v, want %v", tc.xs, got, tc.want)
		}
	}
}
