package changepoint

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Defaults of Options.
const (
	DefaultAlpha        = 0.05
	DefaultPermutations = 199
	DefaultMinChange    = 0.05
	DefaultWindow       = 100
)

// Options tune Detect. Zero fields take the defaults.
type Options struct {
	Alpha        float64 // significance level (0.05)
	Permutations int     // permutation test's shuffles, at most (199)
	Seed         uint64  // seeds the shuffles and bootstraps: the same seed gives the same answer
	// MinChange is the smallest relative size |After/Before − 1| reported
	// (0.05); a negative value reports every significant change.
	MinChange float64
	// Window is the longest stretch searched at once (100); longer series
	// are searched in windows overlapping by half.
	Window int
	// Log compares the points' logarithms (when every point is positive):
	// latencies and throughputs, whose changes are ratios.
	Log bool
	// Judge, when set, decides whether a candidate is significant; it is
	// asked only when the permutation test found the candidate significant
	// or abstained (SeriesP NaN). It gets the candidate with its series
	// figures (Before and After are the means of the points on each side,
	// Lo and Hi a bootstrap interval of Rel, P and SeriesP the permutation
	// test's p-value) and may replace Before, After, Rel, Lo, Hi and P with
	// its own — pooled figures, which must lie within the range of the
	// points of each side. Unset, a candidate is significant when the
	// permutation test decided so.
	Judge func(c *Change) bool
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultAlpha
	}
	if o.Permutations <= 0 {
		o.Permutations = DefaultPermutations
	}
	if o.MinChange == 0 {
		o.MinChange = DefaultMinChange
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	o.Window = max(o.Window, 4)
	return o
}

// Change is a change point: the series differs from point Index on.
type Change struct {
	Index      int     // the first point after the change
	Start, End int     // the stretch judged: [Start, Index) before, [Index, End) after
	Before     float64 // the figure before (mean of the points, or the Judge's)
	After      float64 // the figure after
	Rel        float64 // After/Before − 1; ±Inf when Before is 0
	Lo, Hi     float64 // confidence interval of Rel (95%); NaN when none
	P          float64 // p-value of the verdict
	SeriesP    float64 // the permutation test's p-value; NaN when it abstained (too few arrangements)
	Q          float64 // the E-divisive divergence Q̂ of the split
}

// Detect returns the change points of xs, in order. A series with a
// non-finite point, or fewer than two points, has none.
func Detect(xs []float64, o Options) []Change {
	o = o.withDefaults()
	n := len(xs)
	if n < 2 {
		return nil
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	}
	d := &detector{xs: xs, z: xs, o: o}
	if o.Log {
		d.z = logs(xs)
	}
	if n <= o.Window {
		return d.merge(d.hierarchy(0, n))
	}
	found := map[int]bool{}
	var cps []Change
	step := o.Window / 2
	for s := 0; ; s += step {
		e := min(s+o.Window, n)
		for _, c := range d.hierarchy(s, e) {
			if !found[c.Index] {
				found[c.Index] = true
				cps = append(cps, c)
			}
		}
		if e == n {
			break
		}
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].Index < cps[j].Index })
	return d.merge(cps)
}

// logs returns the logarithms of xs, or xs when a point is not positive.
func logs(xs []float64) []float64 {
	z := make([]float64, len(xs))
	for i, x := range xs {
		if x <= 0 {
			return xs
		}
		z[i] = math.Log(x)
	}
	return z
}

type detector struct {
	xs, z []float64
	o     Options
	sc    scratch
	// judged memoises verdicts by stretch and split: the merge step asks
	// again about changes whose neighbours did not move.
	judged map[[3]int]verdict
}

type verdict struct {
	c  Change
	ok bool
}

// hierarchy runs E-divisive over [start, end): the best candidate of the
// open stretches is judged, a change splits its stretch, a stretch whose
// best candidate is not a change is closed.
func (d *detector) hierarchy(start, end int) []Change {
	open := []stretch{{start, end}}
	var cps []Change
	for len(open) > 0 {
		bi, best := -1, split{Q: math.Inf(-1)}
		for i, st := range open {
			if s, ok := d.sc.best(d.z[st.Start:st.End], st.Start); ok && s.Q > best.Q {
				bi, best = i, s
			}
		}
		if bi < 0 {
			break
		}
		st := open[bi]
		c, ok := d.judge(st, best, open)
		open = append(open[:bi:bi], open[bi+1:]...)
		if !ok {
			continue
		}
		cps = append(cps, c)
		for _, half := range []stretch{{st.Start, c.Index}, {c.Index, st.End}} {
			if half.End-half.Start >= 2 {
				open = append(open, half)
			}
		}
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].Index < cps[j].Index })
	return cps
}

// judge decides whether split s of stretch st is a change, the permutation
// test shuffling the open stretches.
func (d *detector) judge(st stretch, s split, open []stretch) (Change, bool) {
	key := [3]int{st.Start, s.At, st.End}
	if v, ok := d.judged[key]; ok {
		return v.c, v.ok
	}
	c, ok := d.judgeNew(st, s, open)
	if d.judged == nil {
		d.judged = map[[3]int]verdict{}
	}
	d.judged[key] = verdict{c, ok}
	return c, ok
}

func (d *detector) judgeNew(st stretch, s split, open []stretch) (Change, bool) {
	c := Change{Index: s.At, Start: st.Start, End: st.End, Q: s.Q, Lo: math.NaN(), Hi: math.NaN(), SeriesP: math.NaN()}
	before, after := d.xs[st.Start:s.At], d.xs[s.At:st.End]
	if d.o.MinChange > 0 && maxRel(before, after) < d.o.MinChange {
		return c, false // no figure within the sides' ranges could be large enough
	}
	c.Before, c.After = mean(before), mean(after)
	c.Rel = rel(c.Before, c.After)
	if d.o.MinChange > 0 && math.Abs(c.Rel) < d.o.MinChange/2 {
		// A shortcut, not a bound: figures pooled from runs that differ
		// by less than half the minimum on average do not differ by the
		// minimum. It spares the permutation test and the Judge the
		// candidates of a stable series.
		return c, false
	}
	seed := uint64(st.Start)<<42 ^ uint64(s.At)<<21 ^ uint64(st.End)
	if decisive(st.End-st.Start, s.At-st.Start, d.o.Alpha) {
		c.SeriesP = permutationP(d.z, open, s.Q, d.o, seed)
	}
	c.P = c.SeriesP
	if !math.IsNaN(c.SeriesP) && c.SeriesP > d.o.Alpha {
		return c, false // the permutation test decided: no change
	}
	c.Lo, c.Hi = meansInterval(before, after, d.o.Seed^seed, 0.95)
	significant := !math.IsNaN(c.SeriesP) // and at most Alpha
	if d.o.Judge != nil {
		significant = d.o.Judge(&c)
	}
	return c, significant && math.Abs(c.Rel) >= d.o.MinChange
}

// merge judges the changes found again, each between its neighbours (at
// most Window/2 points away), dropping the weakest failing one until all
// hold: a change's figures are those of the runs since the previous change
// against the runs up to the next.
func (d *detector) merge(cps []Change) []Change {
	half := d.o.Window / 2
	for {
		var judged []Change
		worst, worstP := -1, -1.0
		for i, c := range cps {
			st := stretch{max(c.Index-half, 0), min(c.Index+half, len(d.xs))}
			if i > 0 {
				st.Start = max(st.Start, cps[i-1].Index)
			}
			if i+1 < len(cps) {
				st.End = min(st.End, cps[i+1].Index)
			}
			s, _ := d.sc.bestAt(d.z[st.Start:st.End], st.Start, c.Index-st.Start)
			nc, ok := d.judge(st, s, []stretch{st})
			judged = append(judged, nc)
			if !ok {
				p := nc.P
				if math.IsNaN(p) {
					p = 2
				}
				if p > worstP {
					worst, worstP = i, p
				}
			}
		}
		if worst < 0 {
			return judged
		}
		cps = append(cps[:worst:worst], cps[worst+1:]...)
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func rel(before, after float64) float64 {
	if before == 0 {
		switch {
		case after > 0:
			return math.Inf(1)
		case after < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return after/before - 1
}

// maxRel bounds |after/before − 1| for any figures within the ranges of
// the two sides; +Inf when before's range holds a point ≤ 0.
func maxRel(before, after []float64) float64 {
	bmin, bmax := span(before)
	amin, amax := span(after)
	if bmin <= 0 {
		return math.Inf(1)
	}
	return max(math.Abs(amax/bmin-1), math.Abs(amin/bmax-1))
}

func span(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// meansInterval is a percentile bootstrap interval of mean(after)/mean(before) − 1,
// resampling the points of each side; NaN when a side has one point.
func meansInterval(before, after []float64, seed uint64, conf float64) (lo, hi float64) {
	if len(before) < 2 || len(after) < 2 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	const reps = 999
	rs := make([]float64, 0, reps)
	draw := func(xs []float64) float64 {
		var s float64
		for range xs {
			s += xs[rng.IntN(len(xs))]
		}
		return s / float64(len(xs))
	}
	for range reps {
		if r := rel(draw(before), draw(after)); !math.IsNaN(r) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(rs)
	a := (1 - conf) / 2
	return rs[int(a*float64(len(rs)-1))], rs[int((1-a)*float64(len(rs)-1)+0.5)]
}
