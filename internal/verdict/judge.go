package verdict

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/loadlab/loadlab/internal/runblock"
)

// binomialDF stands for the degrees of freedom of a binomial variance
// (known from thousands of requests, not estimated from a few runs).
const binomialDF = 1000

// withinDominates is how many times the run-to-run variance a run's
// within-run variance must be for its own degrees of freedom (its blocks')
// to count instead of the pooled residuals': a pause, a failing run.
const withinDominates = 4

// zPower is the normal quantile of the power a repeat count is sized for
// (80%).
const zPower = 0.8416

// Judge judges the difference of after against before: each side a group
// of runs (replicates of one build, or the runs since the last change).
// Runs whose figure cannot be judged (not finite, or not positive for a
// relative stat) are left out silently; noisy runs (Health.JudgeAmong) are left
// out while each side keeps a clean run, and named.
func Judge(before, after []Run, o Options) (Verdict, error) {
	o = o.withDefaults()
	v, err := judge(before, after, o)
	if err != nil || v.Outcome != CannotTell || !o.Stat.HigherIsWorse() || o.Stat.Points() {
		return v, err
	}
	// A side of noisy runs only: a generator's lag only adds to the
	// latencies it measures, so noisy older runs can only hide a
	// regression, and noisy newer runs only an improvement. Judged with
	// them kept, a verdict the noise could only have hidden stands.
	before, after = judgeable(before, o.Stat), judgeable(after, o.Stat)
	typical := o.typical(before, after)
	cb, _ := clean(before, typical)
	ca, _ := clean(after, typical)
	if len(before) == 0 || len(after) == 0 || (len(cb) > 0 && len(ca) > 0) || (len(cb) == 0 && len(ca) == 0) {
		return v, nil
	}
	kept := o
	kept.keepNoisy = true
	w, err := judge(before, after, kept)
	if err != nil {
		return v, err
	}
	if (len(cb) == 0 && w.Outcome == Worse) || (len(ca) == 0 && w.Outcome == Better) {
		w.NoisyKept = true
		w.Text = describe(&w, kept)
		return w, nil
	}
	return v, nil
}

func judge(before, after []Run, o Options) (Verdict, error) {
	s := o.Stat
	v := Verdict{Stat: s, Outcome: CannotTell, Confidence: o.Confidence, Relative: !s.Points(), MinChange: o.MinChange,
		Noise: math.NaN(), Before: math.NaN(), After: math.NaN(), Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	before, after = judgeable(before, s), judgeable(after, s)
	typical := o.typical(before, after)
	cb, nb := clean(before, typical)
	ca, na := clean(after, typical)
	if o.keepNoisy {
		cb, ca = before, after
	}
	switch {
	case len(before) == 0 || len(after) == 0:
		v.RunsBefore, v.RunsAfter = len(before), len(after)
		v.Text = describe(&v, o)
		return v, nil
	case len(ca) == 0 || len(cb) == 0:
		v.Noisy = append(nb, na...)
		v.RunsBefore, v.RunsAfter = len(before), len(after)
		v.Text = describe(&v, o)
		return v, nil
	}
	v.Noisy = append(nb, na...)
	before, after = cb, ca
	v.RunsBefore, v.RunsAfter = len(before), len(after)

	yb, wb, wdfb, err := scaled(before, o)
	if err != nil {
		return v, err
	}
	ya, wa, wdfa, err := scaled(after, o)
	if err != nil {
		return v, err
	}
	mb, ma := mean(yb), mean(ya)
	v.Before, v.After = s.unscale(mb), s.unscale(ma)
	d := ma - mb
	v.Change = s.sizeOf(d)

	// The run-to-run variance: residuals of each group around its level,
	// and of the replicates around theirs.
	ss, df := residuals(yb)
	ssa, dfa := residuals(ya)
	ss, df = ss+ssa, df+dfa
	var ssRep float64
	dfRep := 0
	for _, g := range o.Replicates {
		var ys []float64
		for _, x := range g {
			if y := s.figure(x); !math.IsNaN(y) && !math.IsInf(y, 0) {
				ys = append(ys, y)
			}
		}
		r, k := residuals(ys)
		ssRep, dfRep = ssRep+r, dfRep+k
	}
	ss, df = ss+ssRep, df+dfRep
	s2 := 0.0
	if df > 0 {
		s2 = ss / float64(df)
		v.Noise = math.Sqrt(s2) // relative: the log's deviation is the ratio's
	}
	v.DF = df
	if df == 0 {
		// One run each and no replicates: the run-to-run variance is
		// unknown. The runs' blocks can still bound the variance within
		// each run (as duet benchmarking shares the machine's noise
		// between the two); without blocks nothing can be said.
		for _, w := range append(append([]float64{}, wb...), wa...) {
			if math.IsNaN(w) {
				v.Repeats = 3
				v.Text = describe(&v, o)
				return v, nil
			}
		}
		v.WithinOnly = true
	}
	m := s.minOnScale(o.MinChange)
	if o.NoiseFloor && dfRep >= 2 {
		floor := studentQuantile(1-(1-o.Confidence)/2, float64(dfRep)) * math.Sqrt(2*ssRep/float64(dfRep))
		m, v.MinChange, v.FloorFromReplicates = floor, s.sizeOf(floor), true
	}
	// Each run's variance is the run-to-run variance or its own within-run
	// variance, whichever is larger; the degrees of freedom of the sum
	// are Satterthwaite's, the pooled residuals' for the run-to-run part,
	// the blocks' for a within-run part.
	var pooledPart float64
	var parts, partDF []float64
	add := func(w, wdf []float64) {
		n2 := float64(len(w) * len(w))
		for i, x := range w {
			if math.IsNaN(x) || (df > 0 && x <= withinDominates*s2) {
				// within the run-to-run spread's own uncertainty: the
				// pooled residuals' degrees of freedom, the larger variance
				if math.IsNaN(x) || x < s2 {
					x = s2
				}
				pooledPart += x / n2
				continue
			}
			parts, partDF = append(parts, x/n2), append(partDF, wdf[i])
		}
	}
	add(wb, wdfb)
	add(wa, wdfa)
	vb := 0.0
	for _, x := range wb {
		if math.IsNaN(x) {
			x = s2
		}
		vb += max(x, s2) / float64(len(wb)*len(wb))
	}
	se2, den := pooledPart, 0.0
	if pooledPart > 0 {
		den = pooledPart * pooledPart / float64(df)
	}
	for i, c := range parts {
		se2 += c
		den += c * c / partDF[i]
	}
	se := math.Sqrt(se2)
	dfEff := float64(max(df, 1))
	if den > 0 {
		dfEff = max(se2*se2/den, 1)
	}
	v.DF = int(math.Round(dfEff))
	t := studentQuantile(1-(1-o.Confidence)/2, dfEff)
	lo, hi := d-t*se, d+t*se
	v.Lo, v.Hi = s.sizeOf(lo), s.sizeOf(hi)
	if v.Outcome = decide(s, d, lo, hi, m); v.Outcome == CannotTell {
		v.Repeats = repeats(vb, s2, wb, max(df, 1), len(after), m, o.Confidence)
	}
	v.Text = describe(&v, o)
	return v, nil
}

// decide is the outcome of a difference d with interval [lo, hi] on the
// judged scale, against the minimum change m: worse or better when the
// interval excludes zero and the change is at least m, no change when the
// interval's worse side is below m, cannot tell otherwise.
func decide(s Stat, d, lo, hi, m float64) Outcome {
	sign := 1.0
	if !s.HigherIsWorse() {
		sign = -1
	}
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(d):
		return CannotTell
	case (lo > 0 || hi < 0) && math.Abs(d) >= m:
		if sign*d > 0 {
			return Worse
		}
		return Better
	case max(sign*lo, sign*hi) < m || m == 0:
		return Same
	}
	return CannotTell
}

// repeats is the fewest runs of the newer side (MaxRepeats at most; 0
// when more) with which a difference of the minimum size would be found
// at the confidence level with 80% power, the older side as it is. The
// repeats are fresh runs, as noisy as the older side's runs are (a run
// that paused is not what a rerun is expected to do).
func repeats(vb, s2 float64, wb []float64, df, n int, m, conf float64) int {
	w := s2
	var typical []float64
	for _, x := range wb {
		if !math.IsNaN(x) {
			typical = append(typical, x)
		}
	}
	if len(typical) > 0 {
		sort.Float64s(typical)
		w = max(w, typical[len(typical)/2])
	}
	for k := 1; k <= MaxRepeats; k++ {
		dfk := df - (n - 1) + (k - 1)
		if dfk < 1 {
			continue
		}
		if (studentQuantile(1-(1-conf)/2, float64(dfk))+zPower)*math.Sqrt(vb+w/float64(k)) <= m {
			return k
		}
	}
	return 0
}

// judgeable keeps the runs whose figure can be judged.
func judgeable(rs []Run, s Stat) []Run {
	var out []Run
	for _, r := range rs {
		if y := s.figure(r.Value); !math.IsNaN(y) && !math.IsInf(y, 0) {
			out = append(out, r)
		}
	}
	return out
}

// typical is the latency p99 the runs judged typically measure:
// Options.TypicalP99, else the median over both sides' runs.
func (o Options) typical(before, after []Run) time.Duration {
	if o.TypicalP99 > 0 {
		return o.TypicalP99
	}
	var hs []*runblock.Health
	for _, r := range append(append([]Run{}, before...), after...) {
		hs = append(hs, r.Health)
	}
	return runblock.TypicalP99(hs)
}

// clean splits the runs into those a verdict may rest on and the noisy
// (runblock.Health.JudgeAmong, against the runs' typical latency p99).
func clean(rs []Run, typical time.Duration) (ok []Run, noisy []Excluded) {
	for _, r := range rs {
		if r.Health != nil {
			if bad, why := r.Health.JudgeAmong(typical); bad {
				noisy = append(noisy, Excluded{ID: r.ID, Why: why})
				continue
			}
		}
		ok = append(ok, r)
	}
	return ok, noisy
}

// scaled returns the runs' figures on the judged scale and each run's
// within-run variance (NaN when unknown): the block bootstrap's, and for
// a rate at least the binomial variance of its requests.
// wdf is the degrees of freedom of each within-run variance: its blocks'
// less one, or binomialDF for a rate's binomial variance.
func scaled(rs []Run, o Options) (ys, ws, wdf []float64, err error) {
	for _, r := range rs {
		ys = append(ys, o.Stat.figure(r.Value))
		if r.prepared == nil || *r.prepared != (preparedFor{o.Stat, o.Seed, o.Resamples}) {
			if err := r.prepare(o.Stat, o.Seed, o.Resamples); err != nil {
				return nil, nil, nil, fmt.Errorf("run %s: %w", r.ID, err)
			}
		}
		w, k := r.within, float64(len(r.Blocks)-1)
		if o.Stat.Points() && r.Requests > 0 {
			if b := binomial(r); math.IsNaN(w) || b > w {
				w, k = b, binomialDF
			}
		}
		ws, wdf = append(ws, w), append(wdf, k)
	}
	return ys, ws, wdf, nil
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// residuals is the sum of squares of xs around their mean and its
// degrees of freedom.
func residuals(xs []float64) (ss float64, df int) {
	if len(xs) < 2 {
		return 0, 0
	}
	m := mean(xs)
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss, len(xs) - 1
}
