package changepoint

import "math"

// sides are the summary statistics of the two sides of a split.
type sides struct {
	n1, n2     int
	m1, m2     float64 // means
	ss1, ss2   float64 // sums of squared deviations from the mean
	sameValues bool    // every point of both sides is equal
}

// summarize returns the statistics of z[a:b) against z[b:c).
func summarize(z []float64, a, b, c int) sides {
	s := sides{n1: b - a, n2: c - b}
	s.m1, s.ss1 = meanSS(z[a:b])
	s.m2, s.ss2 = meanSS(z[b:c])
	s.sameValues = s.ss1 == 0 && s.ss2 == 0 && s.m1 == s.m2
	return s
}

func meanSS(xs []float64) (m, ss float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, ss
}

// tTest is Student's two-sided t-test of equal means with a pooled
// variance, as Apache Otava computes it (TTestSignificanceTester: each
// side's spread taken with divisor n, then pooled over n1+n2−2 degrees of
// freedom). It returns the p-value, the standard error of m2−m1 and the
// degrees of freedom; df is 0, and p NaN, when the sides have two points
// in all (nothing to estimate the spread from).
func tTest(s sides) (p, se float64, df int) {
	df = s.n1 + s.n2 - 2
	if df <= 0 {
		return math.NaN(), math.NaN(), 0
	}
	n1, n2 := float64(s.n1), float64(s.n2)
	// Otava passes numpy's std (divisor n) where scipy expects the
	// sample's (divisor n−1): the pooled variance is (ss1+ss2)/df
	// scaled down by those factors.
	v1, v2 := s.ss1/n1, s.ss2/n2
	pooled := ((n1-1)*v1 + (n2-1)*v2) / float64(df)
	se = math.Sqrt(pooled * (1/n1 + 1/n2))
	d := s.m2 - s.m1
	switch {
	case se == 0 && d == 0:
		return 1, 0, df
	case se == 0:
		return 0, 0, df
	}
	return tTail(math.Abs(d)/se, float64(df)), se, df
}

// tTail is the two-sided tail P(|T| ≥ t) of Student's t with df degrees
// of freedom.
func tTail(t, df float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	return betaInc(df/2, 0.5, df/(df+t*t))
}

// tQuantile is the q-quantile (0.5 < q < 1) of Student's t with df
// degrees of freedom, by bisection on tTail.
func tQuantile(q, df float64) float64 {
	tail := 2 * (1 - q)
	lo, hi := 0.0, 1.0
	for tTail(hi, df) > tail {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 100 {
		mid := (lo + hi) / 2
		if tTail(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// betaInc is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Numerical Recipes, 6.4).
func betaInc(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		aa := fm * (b - fm) * x / ((qam + 2*fm) * (a + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + 2*fm) * (qap + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
