package compare

import (
	"math"
	"math/rand/v2"
)

// poisson draws from a Poisson distribution with mean lam: Knuth's
// multiplication method for small means and Hörmann's PTRS transformed
// rejection (as numpy uses) from 10 up; both exact.
func poisson(rng *rand.Rand, lam float64) int64 {
	if lam <= 0 {
		return 0
	}
	if lam < 10 {
		var l float64
		if k := int(lam); float64(k) == lam {
			l = expNeg[k] // bucket counts are whole: no Exp per draw
		} else {
			l = math.Exp(-lam)
		}
		var k int64
		for p := rng.Float64(); p > l; p *= rng.Float64() {
			k++
		}
		return k
	}
	slam, loglam := math.Sqrt(lam), math.Log(lam)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invalpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := rng.Float64() - 0.5
		v := rng.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lam + 0.43)
		if us >= 0.07 && v <= vr {
			return int64(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invalpha)-math.Log(a/(us*us)+b) <= -lam+k*loglam-lg {
			return int64(k)
		}
	}
}

// expNeg[k] is e^-k, for the whole means below 10 that bucket counts are.
var expNeg = func() (t [10]float64) {
	for k := range t {
		t[k] = math.Exp(-float64(k))
	}
	return t
}()
