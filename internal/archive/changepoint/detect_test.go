package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// noisy returns n points around level with relative noise sd.
func noisy(rng *rand.Rand, n int, level, sd float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * (1 + sd*rng.NormFloat64())
	}
	return xs
}

func TestConstantSeriesHasNoChange(t *testing.T) {
	for _, n := range []int{2, 3, 6, 40, 250} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 12.5
		}
		if cps := Detect(xs, Options{}); len(cps) != 0 {
			t.Errorf("n=%d: constant series gave %+v", n, cps)
		}
	}
}

func TestStepFoundAtItsPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ before, after int }{{10, 10}, {5, 15}, {20, 4}, {60, 60}} {
		xs := append(noisy(rng, tc.before, 100, 0.02), noisy(rng, tc.after, 130, 0.02)...)
		cps := Detect(xs, Options{Log: true})
		if len(cps) != 1 || cps[0].Index != tc.before {
			t.Fatalf("%d then %d points: want one change at %d, got %+v", tc.before, tc.after, tc.before, cps)
		}
		c := cps[0]
		if c.Rel < 0.25 || c.Rel > 0.35 || !(c.Lo <= c.Rel && c.Rel <= c.Hi) || c.Lo < 0.2 {
			t.Errorf("%+v: size %.3f, interval [%.3f, %.3f]: want about +30%% inside its interval", tc, c.Rel, c.Lo, c.Hi)
		}
		if c.SeriesP >= DefaultAlpha || c.P != c.SeriesP || c.Outcome != Changed {
			t.Errorf("%+v: p %.4f, series p %.4f", tc, c.P, c.SeriesP)
		}
	}
}

func TestSeveralChangesInLongSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var xs []float64
	xs = append(xs, noisy(rng, 137, 20, 0.03)...)
	xs = append(xs, noisy(rng, 163, 26, 0.03)...) // +30% at 137
	xs = append(xs, noisy(rng, 300, 20, 0.03)...) // back at 300
	cps := Detect(xs, Options{Log: true})
	if len(cps) != 2 || cps[0].Index != 137 || cps[1].Index != 300 {
		t.Fatalf("want changes at 137 and 300, got %+v", cps)
	}
	if cps[0].Rel < 0.25 || cps[1].Rel > -0.2 {
		t.Errorf("sizes %.3f, %.3f", cps[0].Rel, cps[1].Rel)
	}
}

// The divergence computed in O(m²) matches its definition.
func TestDivergenceMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 50 {
		z := noisy(rng, 2+rng.IntN(14), 10, 0.5)
		var sc scratch
		got, _ := sc.best(z, 0)
		want := math.Inf(-1)
		for tau := 1; tau < len(z); tau++ {
			for kappa := tau + 1; kappa <= len(z); kappa++ {
				want = max(want, naiveQ(z[:tau], z[tau:kappa]))
			}
		}
		if math.Abs(got.Q-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("%v: Q %v, want %v", z, got.Q, want)
		}
		if q := naiveQ(z[:got.At], z[got.At:got.Kappa]); math.Abs(q-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("%v: split (%d, %d) has Q %v, not the best %v", z, got.At, got.Kappa, q, want)
		}
	}
}

func naiveQ(x, y []float64) float64 {
	avg := func(a, b []float64, same bool) float64 {
		var s float64
		var n int
		for i := range a {
			for j := range b {
				if same && j <= i {
					continue
				}
				s += math.Abs(a[i] - b[j])
				n++
			}
		}
		if n == 0 {
			return 0
		}
		return s / float64(n)
	}
	nx, ny := float64(len(x)), float64(len(y))
	return nx * ny / (nx + ny) * (2*avg(x, y, false) - avg(x, x, true) - avg(y, y, true))
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(0), false)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 200, 200, 200, 200}, uint8(3), true)
	f.Add([]byte{255, 0, 255, 0, 1}, uint8(5), true)
	f.Fuzz(func(t *testing.T, b []byte, window uint8, log bool) {
		xs := make([]float64, len(b))
		for i, v := range b {
			xs[i] = float64(v)
		}
		cps := Detect(xs, Options{Window: int(window), Log: log})
		last := 0
		for _, c := range cps {
			if c.Index <= last || c.Index >= len(xs) || c.Start >= c.Index || c.End <= c.Index || c.End > len(xs) {
				t.Fatalf("%v: bad change %+v", xs, c)
			}
			if math.Abs(c.Rel) < DefaultMinChange {
				t.Fatalf("%v: change below the minimum size %+v", xs, c)
			}
			last = c.Index
		}
	})
}

// BenchmarkDetect10000 is a stable series of 10,000 runs' p95 (3% noise),
// as bench/trend measures it with the archive.
func BenchmarkDetect10000(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	xs := noisy(rng, 10000, 14, 0.03)
	for b.Loop() {
		Detect(xs, Options{Log: true})
	}
}

// The Judge is asked about every candidate of the merge step whose size
// may reach the minimum, whatever the t-test said, and its verdict and
// figures stand.
func TestJudgeDecides(t *testing.T) {
	// Six points split three and three: the t-test alone finds the
	// change (p about 2e-5).
	xs := []float64{10, 9.8, 10.1, 14, 14.2, 13.9}
	if cps := Detect(xs, Options{Log: true}); len(cps) != 1 || cps[0].Index != 3 {
		t.Fatalf("no judge: %+v", cps)
	}
	var seen []Change
	res := Analyze(xs, Options{Log: true, Judge: func(c *Change) Outcome {
		seen = append(seen, *c)
		return CannotTell
	}})
	if len(res.Changes) != 0 || len(res.Undecided) != 1 || res.Undecided[0].Index != 3 || res.Undecided[0].Outcome != CannotTell {
		t.Fatalf("judge that cannot tell: %+v", res)
	}
	if len(seen) != 1 || seen[0].Outcome != Changed || seen[0].SeriesP != seen[0].P {
		t.Errorf("judge saw %+v, want the change at 3 with the t-test's verdict", seen)
	}
	cps := Detect(xs, Options{Judge: func(c *Change) Outcome {
		c.Before, c.After, c.Rel, c.Lo, c.Hi, c.P = 10, 14, 0.4, 0.35, 0.45, 0.0001
		return Changed
	}})
	if len(cps) != 1 || cps[0].Rel != 0.4 || cps[0].P != 0.0001 || cps[0].Lo != 0.35 {
		t.Fatalf("judge replacing figures: %+v", cps)
	}
	// A flat series: the t-test finds nothing, a judge saying yes to
	// every candidate large enough makes the change.
	flat := []float64{10, 10.2, 9.9, 10.6, 10.7, 10.5}
	if cps := Detect(flat, Options{Log: true}); len(cps) != 0 {
		t.Fatalf("flat, no judge: %+v", cps)
	}
	cps = Detect(flat, Options{Log: true, Judge: func(c *Change) Outcome { c.P = 0; return Changed }})
	if len(cps) != 1 || cps[0].Index != 3 {
		t.Fatalf("flat, judge saying yes: %+v", cps)
	}
}

// Two points, one each side: there is no spread to test against; the
// candidate is undecided, not "no change".
func TestTwoPointsCannotTell(t *testing.T) {
	res := Analyze([]float64{10, 20}, Options{Log: true})
	if len(res.Changes) != 0 || len(res.Undecided) != 1 || res.Undecided[0].Index != 1 || !math.IsNaN(res.Undecided[0].SeriesP) {
		t.Fatalf("%+v", res)
	}
	if res := Analyze([]float64{10, 10.1}, Options{Log: true}); len(res.Changes)+len(res.Undecided) != 0 {
		t.Fatalf("below the minimum size: %+v", res)
	}
}

// Two changes in a row (a throughput of 100, then 150, then 75): each is
// found, judged between its neighbours, with its own size.
func TestNeighbourChangesKeepTheirSizes(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 13))
		var xs []float64
		xs = append(xs, noisy(rng, 10, 100, 0.03)...)
		xs = append(xs, noisy(rng, 10, 150, 0.03)...)
		xs = append(xs, noisy(rng, 10, 75, 0.03)...)
		cps := Detect(xs, Options{Log: true})
		if len(cps) != 2 || cps[0].Index != 10 || cps[1].Index != 20 {
			t.Fatalf("seed %d: want changes at 10 and 20, got %+v", seed, cps)
		}
		if c := cps[0]; c.Start != 0 || c.End != 20 || math.Abs(c.Rel-0.5) > 0.05 {
			t.Errorf("seed %d: first change %+v, want +50%% over [0, 20)", seed, c)
		}
		if c := cps[1]; c.Start != 10 || c.End != 30 || math.Abs(c.Rel+0.5) > 0.05 {
			t.Errorf("seed %d: second change %+v, want −50%% over [10, 30)", seed, c)
		}
	}
}

// Of a real change and a spurious neighbour that both fail when judged
// between each other, the merge step drops the spurious one and keeps
// the real one. Otava's merge, ranking them as they are, drops the real
// one (12, a twentyfold rise, judged against the single point before it)
// first.
func TestMergeKeepsTheRealOfTwoFailing(t *testing.T) {
	// Otava's series2 and three more points: 1.97, then 33.33 and 46.46,
	// at Otava's level.
	xs := []float64{2.02, 2.03, 2.01, 2.04, 1.82, 1.85, 1.79, 1.81, 1.80, 1.76, 1.78, 1.97, 33.33, 46.46}
	d := &detector{xs: xs, z: xs, o: Options{Alpha: 0.001, MinChange: -1}.withDefaults()}
	weak := d.split()
	if !slices.Equal(weak, []int{4, 11, 12}) {
		t.Fatalf("weak changes %v, want 4, 11 and 12", weak)
	}
	if got := indexes(d.merge(weak).Changes); !slices.Equal(got, []int{4, 12}) {
		t.Errorf("merged: %v, want 4 and 12", got)
	}
	d = &detector{xs: xs, z: xs, o: Options{Alpha: 0.001, MinChange: -1, otava: true}.withDefaults()}
	if got := indexes(d.merge(weak).Changes); !slices.Equal(got, []int{4}) {
		t.Errorf("Otava's merge: %v, want 4 alone", got)
	}
}

// The Judge is asked once about the same runs: the merge step judges a
// change again each time a neighbour goes, and a Judge whose figures are
// its own is not asked again while it would see the same runs. In a long
// series its stretch is half a window each side.
func TestJudgeAskedOncePerStretch(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 14))
		xs := append(noisy(rng, 300, 100, 0.04), noisy(rng, 300, 130, 0.04)...)
		asked := map[[3]int]int{}
		cps := Detect(xs, Options{Log: true, Judge: func(c *Change) Outcome {
			asked[[3]int{c.Start, c.Index, c.End}]++
			c.Before, c.After, c.Rel, c.P = 100, 130, 0.3, 1e-6
			return Changed
		}})
		if len(cps) != 1 || cps[0].Index != 300 || cps[0].Start != 275 || cps[0].End != 325 || cps[0].Rel != 0.3 {
			t.Fatalf("seed %d: %+v", seed, cps)
		}
		for k, n := range asked {
			if n > 1 {
				t.Errorf("seed %d: the Judge was asked %d times about %v", seed, n, k)
			}
		}
	}
}

// Six runs, +20% after the third, with 4% noise: the t-test cannot reach
// its level with so few points (p about 0.004); the candidate is
// undecided, not "no change", and a Judge is asked about it.
func TestShortSeriesCannotTell(t *testing.T) {
	xs := []float64{10, 10.6, 9.6, 12.4, 11.5, 12.6}
	res := Analyze(xs, Options{Log: true})
	if len(res.Changes) != 0 || len(res.Undecided) != 1 || res.Undecided[0].Index != 3 || res.Undecided[0].Outcome != CannotTell {
		t.Fatalf("%+v", res)
	}
	if p := res.Undecided[0].SeriesP; !(p > 0.001 && p < 0.01) {
		t.Errorf("t-test p %v, want between 0.001 and 0.01", p)
	}
	cps := Detect(xs, Options{Log: true, Judge: func(c *Change) Outcome { c.P = 1e-6; return Changed }})
	if len(cps) != 1 || cps[0].Index != 3 {
		t.Fatalf("judge saying yes: %+v", cps)
	}
}
