package verdict

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// sharedNoiseRun is a run of 16 blocks of 300 requests (log-normal, median
// 10 ms × scale) whose block b is slowed by slow[b]: noise of the machine
// two runs made at once both suffer. Value is its mean (ms).
func sharedNoiseRun(t *testing.T, rng *rand.Rand, id string, scale float64, slow []float64) Run {
	t.Helper()
	all := metrics.NewHistogram()
	var bs []runblock.Block
	for b, f := range slow {
		h := metrics.NewHistogram()
		for range 300 {
			d := time.Duration(scale * f * 10 * math.Exp(0.3*rng.NormFloat64()) * float64(time.Millisecond))
			metrics.RecordLatency(h, d)
			metrics.RecordLatency(all, d)
		}
		bs = append(bs, blockOf(t, b, h))
	}
	return Run{ID: id, Value: all.Mean() / 1e6, Requests: uint64(300 * len(slow)), Blocks: bs}
}

// Noise that hits both sides of a duet at once (one block in four 60%
// slower) cancels in the paired bootstrap: the same build is no change
// within a narrow interval where the two runs judged apart cannot tell,
// and a build 10% slower is worse, whatever the seed.
func TestJudgePairedCancelsSharedNoise(t *testing.T) {
	slow := make([]float64, 16)
	for b := range slow {
		slow[b] = 1
		if b%4 == 1 {
			slow[b] = 1.6
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	a := sharedNoiseRun(t, rng, "A", 1, slow)
	same := sharedNoiseRun(t, rng, "B", 1, slow)
	slower := sharedNoiseRun(t, rng, "C", 1.1, slow)
	for seed := uint64(1); seed <= 3; seed++ {
		o := Options{Stat: Mean, Seed: seed}
		p, err := JudgePaired(a, same, o)
		if err != nil {
			t.Fatal(err)
		}
		apart, err := Judge([]Run{a}, []Run{same}, o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Outcome != Same || !p.Paired || p.Hi-p.Lo > 0.04 || p.Lo > 0 || p.Hi < 0 {
			t.Errorf("seed %d, same build paired: %s [%+.3f, %+.3f]: %s", seed, p.Outcome, p.Lo, p.Hi, p.Text)
		}
		if w := apart.Hi - apart.Lo; !(w > 2*(p.Hi-p.Lo)) || apart.Outcome == Worse || apart.Outcome == Better {
			t.Errorf("seed %d, same build apart: %s [%+.3f, %+.3f], want at least twice the paired width %.3f", seed, apart.Outcome, apart.Lo, apart.Hi, p.Hi-p.Lo)
		}
		w, err := JudgePaired(a, slower, o)
		if err != nil {
			t.Fatal(err)
		}
		if w.Outcome != Worse || w.Lo <= 0.05 {
			t.Errorf("seed %d, 10%% slower paired: %s [%+.3f, %+.3f]: %s", seed, w.Outcome, w.Lo, w.Hi, w.Text)
		}
	}
	// Too few blocks: cannot tell, saying why.
	short := a
	short.Blocks = a.Blocks[:3]
	if v, _ := JudgePaired(short, short, Options{Stat: Mean}); v.Outcome != CannotTell || v.Text == "" {
		t.Errorf("three blocks: %s %q", v.Outcome, v.Text)
	}
}
