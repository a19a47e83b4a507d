package verdict

import "math"

// studentQuantile is the q quantile (0.5 < q < 1) of Student's t with df
// degrees of freedom (df ≥ 1), by bisection on its distribution function.
func studentQuantile(q float64, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentCDF(hi, df) < q {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if studentCDF(mid, df) < q {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-10*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// studentCDF is P(T ≤ t) for t ≥ 0.
func studentCDF(t, df float64) float64 {
	x := df / (df + t*t)
	return 1 - 0.5*incompleteBeta(df/2, 0.5, x)
}

// incompleteBeta is the regularised incomplete beta function I_x(a, b),
// by its continued fraction (Lentz's method).
func incompleteBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(b, a, 1-x)/b
	}
	return front * betaFraction(a, b, x) / a
}

func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		c = 1 + num/c
		d, c = 1/nonZero(d, tiny), nonZero(c, tiny)
		f *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		c = 1 + num/c
		d, c = 1/nonZero(d, tiny), nonZero(c, tiny)
		delta := d * c
		f *= delta
		if math.Abs(delta-1) < 1e-14 {
			break
		}
	}
	return f
}

func nonZero(v, tiny float64) float64 {
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}
