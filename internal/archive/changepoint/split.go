package changepoint

import (
	"math"
	"slices"
	"sort"
)

// split is Otava's split step: E-divisive over windows of the series,
// each candidate kept when the t-test between its sides reaches the weak
// level. It returns the weak change points, in order.
func (d *detector) split() []int {
	n, w := len(d.z), d.o.Window
	step := w / 2
	weak := WeakAlpha(d.o.Alpha)
	found := map[int]bool{}
	d.q = map[int]float64{}
	for start := 0; start < n; {
		end := min(start+w, n)
		cps := d.window(start, end, weak)
		next := start + step
		if len(cps) > 0 {
			next = max(next, cps[len(cps)-1])
		}
		for _, c := range cps {
			found[c] = true
		}
		start = next
	}
	out := make([]int, 0, len(found))
	for c := range found {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// window runs E-divisive over [start, end): the candidate of greatest Q̂
// over the open stretches (those between the change points found so far)
// is tested; kept, it splits its stretch in two open ones; not kept, its
// stretch is closed and the search goes on in the others. (Otava ends the
// window's search at the first candidate that fails: a two-point stretch
// at its end, which no test can decide, hides the changes before it.)
func (d *detector) window(start, end int, level float64) []int {
	cps := []int{}
	open := []stretch{{start, end}}
	for len(open) > 0 {
		var best split
		bi := -1
		for i, st := range open {
			if s, ok := d.sc.best(d.z[st.Start:st.End], st.Start); ok && (bi < 0 || s.Q > best.Q || s.Q == best.Q && st.Start < open[bi].Start) {
				best, bi = s, i
			}
		}
		if bi < 0 {
			break
		}
		st := open[bi]
		open = append(open[:bi:bi], open[bi+1:]...)
		ok := d.weakTest(st.Start, best.At, st.End, level)
		if !ok && !d.o.otava && best.Kappa < st.End && best.Kappa-best.At >= 2 {
			// A short excursion: the points [At, Kappa) differ from
			// those before, and the points after Kappa are back. Tested
			// against the whole rest of the stretch, the excursion is
			// diluted; tested on the sides that E-divisive chose, it is
			// not. Those sides are the best of the stretch's (m−1)(m−2)/2
			// inner pairs (τ, κ), and noise makes some pair look like an
			// excursion: the level is divided by their number (Bonferroni).
			m := float64(st.End - st.Start)
			ok = d.weakTest(st.Start, best.At, best.Kappa, level/((m-1)*(m-2)/2))
		}
		if !ok && !d.o.otava && d.tooFewToTell(st.Start, best.At, st.End, level) {
			// The t-test could not have kept a change of the minimum
			// size: the Judge, if any, may see what the points alone
			// cannot; if it cannot either, the candidate is undecided.
			v := d.verdict(st.Start, best.At, st.End)
			ok = v.Outcome == Changed
			if v.Outcome == CannotTell {
				d.undecided = append(d.undecided, v)
			}
		}
		if !ok {
			if d.o.otava {
				break
			}
			continue
		}
		d.q[best.At] = max(d.q[best.At], best.Q)
		i := sort.SearchInts(cps, best.At)
		cps = slices.Insert(cps, i, best.At)
		for _, half := range []stretch{{st.Start, best.At}, {best.At, st.End}} {
			if half.End-half.Start >= 2 {
				open = append(open, half)
			}
		}
	}
	return cps
}

// stretch is a half-open range [Start, End) of the series.
type stretch struct{ Start, End int }

// weakTest reports whether the t-test between z[a:b) and z[b:c) reaches
// level. A series of two points, with no spread to estimate, passes: the
// merge step calls its candidate undecided (or its Judge decides).
func (d *detector) weakTest(a, b, c int, level float64) bool {
	p, _, df := tTest(summarize(d.z, a, b, c))
	return df == 0 && c-a == len(d.z) || p <= level
}

// tooFewToTell reports whether the series is too short for the t-test to
// tell: it fits in one window, and the t-test between z[a:b) and z[b:c),
// with the spread of those points, could not reach level for a change of
// MinChange. Then the Judge, with the runs' own data, may tell. In a
// longer series the stretches the merge step judges a real change on are
// long; short ones lie between candidates of the noise, and asking the
// Judge about each would cost its pooling of the runs for nothing.
func (d *detector) tooFewToTell(a, b, c int, level float64) bool {
	if len(d.z) > d.o.Window {
		return false
	}
	if d.o.MinChange <= 0 {
		return true
	}
	_, se, df := tTest(summarize(d.z, a, b, c))
	if df == 0 {
		return true
	}
	least := math.Log1p(d.o.MinChange) // the minimum change on the log scale
	if !d.logged {
		least = d.o.MinChange * math.Abs(mean(d.z[a:b]))
	}
	return tQuantile(1-level/2, float64(df))*se > least
}
