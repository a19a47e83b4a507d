package changepoint

import (
	"math"
	"sort"
)

// Defaults of Options.
const (
	DefaultAlpha     = 0.0001 // a tenth of Otava's default: see the package doc
	DefaultMinChange = 0.05
	DefaultWindow    = 50 // Otava's default window_len
)

// Options tune Detect. Zero fields take the defaults.
type Options struct {
	// Alpha is the level of the t-test that confirms a change (0.0001); the
	// split step keeps weaker candidates (see WeakAlpha) for the merge
	// step to confirm or drop.
	Alpha float64
	// MinChange is the smallest relative size |After/Before − 1| reported
	// (0.05); a negative value reports every significant change.
	MinChange float64
	// Window is the longest stretch searched at once (50); longer series
	// are searched in windows that step on by half a window.
	Window int
	// Log compares the points' logarithms (when every point is positive):
	// latencies and throughputs, whose changes are ratios.
	Log bool
	// Judge, when set, gives the verdict on the candidates whose size may
	// reach MinChange and that the t-test found a change, or, in a series
	// of one window at most, could not have found one of MinChange (see
	// the package doc). It sees Window/2 points each side at most (Start
	// and End say which) and is asked once about the same points. It gets
	// the candidate with the t-test's figures and outcome (Outcome,
	// SeriesP = P) and returns its own outcome; it may replace Before,
	// After, Rel, Lo, Hi and P with figures of its own (pooled from the
	// runs of each side). A Changed verdict below MinChange is taken as
	// NoChange.
	Judge func(c *Change) Outcome

	// otava makes the search Otava's to the letter, for the tests that
	// check the port against Otava's own expectations: a window's search
	// ends at its first candidate that fails, short excursions are not
	// tested on their own, and the merge step judges again the change
	// after the one dropped and the next (not the one before).
	otava bool
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = DefaultAlpha
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

// WeakAlpha is the level at which the split step keeps a candidate, as
// Otava's first pass: ten times alpha below 5%, twice alpha below 50%.
func WeakAlpha(alpha float64) float64 {
	switch {
	case alpha < 0.05:
		return 10 * alpha
	case alpha < 0.5:
		return 2 * alpha
	}
	return alpha
}

// Outcome is the verdict on a candidate change.
type Outcome int

// The three verdicts.
const (
	// NoChange: the sides do not differ by MinChange (their figures are
	// closer), or, with no minimum size, not significantly.
	NoChange Outcome = iota
	// Changed: the sides differ significantly, by MinChange at least.
	Changed
	// CannotTell: the sides' figures differ by MinChange but the evidence
	// does not reach the level (or there is none: one point each side,
	// or the Judge could not decide).
	CannotTell
)

func (v Outcome) String() string {
	switch v {
	case Changed:
		return "change"
	case CannotTell:
		return "cannot tell"
	}
	return "no change"
}

// Change is a candidate change point: the series differs from point
// Index on.
type Change struct {
	Index      int     // the first point after the change
	Start, End int     // the stretch judged: [Start, Index) before, [Index, End) after (the Judge's: Window/2 points each side at most)
	Before     float64 // the figure before: mean of the points (geometric with Log), or the Judge's
	After      float64 // the figure after
	Rel        float64 // After/Before − 1; ±Inf when Before is 0
	Lo, Hi     float64 // 95% confidence interval of Rel; NaN when none
	P          float64 // p-value of the verdict
	SeriesP    float64 // the t-test's p-value over the points; NaN when the sides have two points in all
	Q          float64 // the E-divisive divergence Q̂ of the split that proposed it (0 when unknown)
	Outcome    Outcome

	byJudge bool // Outcome is the Judge's
}

// Result is what Analyze finds.
type Result struct {
	Changes []Change // the changes, in order
	// Undecided are the candidates judged CannotTell, in order: their
	// figures differ by MinChange, the evidence is short. They are those
	// the merge step dropped as such, and, in a series of one window at
	// most, those the split step's t-test could not have kept.
	Undecided []Change
}

// Detect returns the change points of xs, in order. A series with a
// non-finite point, or fewer than two points, has none.
func Detect(xs []float64, o Options) []Change { return Analyze(xs, o).Changes }

// Analyze returns the change points of xs and the candidates it could not
// decide.
func Analyze(xs []float64, o Options) Result {
	o = o.withDefaults()
	if len(xs) < 2 {
		return Result{}
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Result{}
		}
	}
	d := &detector{xs: xs, z: xs, o: o}
	if o.Log {
		d.z = logs(xs)
		d.logged = &d.z[0] != &xs[0]
	}
	res := d.merge(d.split())
	// The split step's undecided candidates, but where a change or
	// another undecided candidate was found at the same point.
	seen := map[int]bool{}
	for _, c := range res.Changes {
		seen[c.Index] = true
	}
	for _, c := range res.Undecided {
		seen[c.Index] = true
	}
	for _, c := range d.undecided {
		if !seen[c.Index] {
			seen[c.Index] = true
			res.Undecided = append(res.Undecided, c)
		}
	}
	sort.Slice(res.Undecided, func(i, j int) bool { return res.Undecided[i].Index < res.Undecided[j].Index })
	return res
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
	xs, z  []float64
	logged bool // z holds the logarithms of xs
	o      Options
	sc     scratch
	// judged memoises the merge step's verdicts by stretch and split: it
	// asks again about changes whose neighbours did not move.
	judged     map[[3]int]Change
	judgements map[[3]int]judgement // the Judge's answers, by the runs it saw
	undecided  []Change             // candidates of the split step too short to tell
	q          map[int]float64      // Q̂ of the split that proposed each weak change
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
