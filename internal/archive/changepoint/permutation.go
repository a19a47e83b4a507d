package changepoint

import (
	"math"
	"math/rand/v2"
)

// stretch is a half-open range [Start, End) of the series.
type stretch struct{ Start, End int }

// permutationP is the permutation test's p-value of a candidate whose Q̂
// is q: the share of shuffles of the open stretches (each shuffled within
// itself) whose best Q̂ reaches q, counting the candidate itself. It stops
// as soon as the candidate cannot be significant at level alpha, the
// p-value then being estimated from the shuffles done.
func permutationP(z []float64, open []stretch, q float64, o Options, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(o.Seed, seed))
	buf := append([]float64(nil), z...)
	var sc scratch
	allowed := int(math.Floor(o.Alpha*float64(o.Permutations+1))) - 1 // exceedances a significant candidate may have
	exceed := 0
	for r := 1; r <= o.Permutations; r++ {
		copy(buf, z)
		best := math.Inf(-1)
		for _, st := range open {
			seg := buf[st.Start:st.End]
			rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			if s, ok := sc.best(seg, st.Start); ok && s.Q > best {
				best = s.Q
			}
		}
		if best >= q*(1-1e-12) {
			exceed++
			if exceed > allowed {
				return min(1, float64(1+exceed)/float64(1+r))
			}
		}
	}
	return float64(1+exceed) / float64(1+o.Permutations)
}

// decisive reports whether a permutation test can be significant at level
// alpha for a split of m points into k and m−k: there must be at least
// 2/alpha distinct arrangements of the two sides.
func decisive(m, k int, alpha float64) bool {
	if k <= 0 || k >= m {
		return false
	}
	lm, _ := math.Lgamma(float64(m + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lr, _ := math.Lgamma(float64(m - k + 1))
	return lm-lk-lr >= math.Log(2/alpha)-1e-9
}
