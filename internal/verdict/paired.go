package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/loadlab/loadlab/internal/runblock"
)

// JudgePaired judges after against before when both ran at once on one
// machine, their time blocks paired (block i of each covers the same
// stretch of time, or the same request pairs: a duet). The within-run
// uncertainty is a paired block bootstrap: the same blocks are drawn for
// both sides and the difference of their figures recomputed, so noise
// that hit both at once cancels. The difference gets a Student t interval
// with the blocks' degrees of freedom; a rate's variance is at least the
// binomial variance of both sides' requests. Health does not exclude a
// side here: the machine's delays fell on both.
//
// A side with fewer blocks than the other is padded with empty blocks;
// with fewer than MinBlocks, or a figure the blocks cannot give, the
// verdict is cannot tell.
func JudgePaired(before, after Run, o Options) (Verdict, error) {
	o = o.withDefaults()
	s := o.Stat
	v := Verdict{Stat: s, Outcome: CannotTell, Confidence: o.Confidence, Relative: !s.Points(), MinChange: o.MinChange,
		Noise: math.NaN(), Before: before.Value, After: after.Value, Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(),
		WithinOnly: true, Paired: true, RunsBefore: 1, RunsAfter: 1}
	yb, ya := s.figure(before.Value), s.figure(after.Value)
	d := ya - yb
	if math.IsNaN(d) || math.IsInf(d, 0) {
		v.Text = describe(&v, o)
		return v, nil
	}
	v.Change = s.sizeOf(d)
	n := max(len(before.Blocks), len(after.Blocks))
	fb, err := flatten(padded(before.Blocks, n))
	if err != nil {
		return v, fmt.Errorf("run %s: %w", before.ID, err)
	}
	fa, err := flatten(padded(after.Blocks, n))
	if err != nil {
		return v, fmt.Errorf("run %s: %w", after.ID, err)
	}
	w := math.NaN()
	if n >= MinBlocks && s != Max {
		w = bootVariance(n, rand.New(rand.NewPCG(o.Seed, fb.seed^fa.seed)), o.Resamples, func(pick []int) float64 {
			return fa.statOf(s, pick) - fb.statOf(s, pick)
		})
	}
	if s.Points() {
		if b := binomial(before) + binomial(after); math.IsNaN(w) || b > w {
			w = b
		}
	}
	if math.IsNaN(w) {
		v.Repeats = 0
		v.Text = describe(&v, o)
		return v, nil
	}
	df := float64(max(n-1, 1))
	v.DF = int(df)
	half := studentQuantile(1-(1-o.Confidence)/2, df) * math.Sqrt(w)
	lo, hi := d-half, d+half
	v.Lo, v.Hi = s.sizeOf(lo), s.sizeOf(hi)
	v.Outcome = decide(s, d, lo, hi, s.minOnScale(o.MinChange))
	v.Text = describe(&v, o)
	return v, nil
}

// padded is blocks with empty blocks appended up to n.
func padded(blocks []runblock.Block, n int) []runblock.Block {
	if len(blocks) >= n {
		return blocks
	}
	return append(append([]runblock.Block{}, blocks...), make([]runblock.Block, n-len(blocks))...)
}

// binomial is the variance, in points², of a rate measured over the
// run's requests ((x+1)/(n+2): a run with no failure still has one); 0
// when it has none.
func binomial(r Run) float64 {
	if r.Requests == 0 {
		return 0
	}
	n := float64(r.Requests)
	p := (r.Value/100*n + 1) / (n + 2)
	return 100 * 100 * p * (1 - p) / n
}
