package changepoint

import "math"

// split is the best split of one stretch: the first point after it (At,
// absolute), the end of the Y side that maximised Q̂ (Kappa, absolute),
// and Q̂.
type split struct {
	At, Kappa int
	Q         float64
}

// scratch holds a stretch's running sums, reused between calls.
type scratch struct {
	within []float64 // within[τ]: sum of |z_i − z_j| over τ ≤ i < j < κ, for the current κ
	prefix []float64 // prefix[b]: sum over 0 ≤ i < j < b
}

// best returns the split of z (a stretch starting at absolute index off)
// maximising Q̂ over every 1 ≤ τ < κ ≤ len(z), in O(len(z)²) time. ok is
// false when z has fewer than two points.
func (sc *scratch) best(z []float64, off int) (s split, ok bool) { return sc.bestAt(z, off, -1) }

// bestAt is best with τ fixed (relative to z) when tau > 0.
func (sc *scratch) bestAt(z []float64, off, tau int) (s split, ok bool) {
	m := len(z)
	if m < 2 || tau >= m {
		return split{}, false
	}
	if cap(sc.within) < m+1 {
		sc.within = make([]float64, m+1)
		sc.prefix = make([]float64, m+1)
	}
	within, prefix := sc.within[:m+1], sc.prefix[:m+1]
	clear(within)
	clear(prefix)
	s.Q = math.Inf(-1)
	for kappa := 2; kappa <= m; kappa++ {
		j := kappa - 1 // the point κ adds
		var c float64
		for tau := j - 1; tau >= 0; tau-- {
			c += math.Abs(z[tau] - z[j])
			within[tau] += c
		}
		prefix[kappa] = within[0]
		all := within[0]
		lo, hi := 1, kappa
		if tau > 0 {
			lo, hi = tau, min(tau+1, kappa)
		}
		for tau := lo; tau < hi; tau++ {
			n1, n2 := float64(tau), float64(kappa-tau)
			sxx, syy := prefix[tau], within[tau]
			sxy := all - sxx - syy
			e := 2 * sxy / (n1 * n2)
			if tau > 1 {
				e -= sxx / (n1 * (n1 - 1) / 2)
			}
			if kappa-tau > 1 {
				e -= syy / (n2 * (n2 - 1) / 2)
			}
			// Ties go to the smaller τ, then the smaller κ, as numpy's
			// argmax over Otava's matrix of Q̂ by (τ, κ) picks them.
			if q := n1 * n2 / (n1 + n2) * e; q > s.Q || q == s.Q && off+tau < s.At {
				s = split{At: off + tau, Kappa: off + kappa, Q: q}
			}
		}
	}
	return s, true
}
