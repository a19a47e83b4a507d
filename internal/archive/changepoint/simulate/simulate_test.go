package simulate

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/loadlab/loadlab/internal/archive/changepoint"
)

// Flat series of run figures raise no alarm: at most 1% of them, with the
// default minimum size (5%), at the noise of a quiet (3%) and of a busy
// (6%) machine.
func TestFlatSeriesFalseAlarms(t *testing.T) {
	for _, n := range []int{6, 10, 30} {
		for _, noise := range []float64{0.03, 0.06} {
			s := Flat(n, noise)
			r := Run(s, 500, 1, changepoint.Options{})
			t.Logf("%s: %d false alarms of %d, %d undecided", s.Name, r.Alarms, r.Series, r.Undecided)
			if r.AlarmRate() > 0.01 {
				t.Errorf("%s: false alarms in %.1f%% of %d series, want at most 1%%", s.Name, 100*r.AlarmRate(), r.Series)
			}
		}
	}
}

// A change at the second or at the last point of a series is found: the
// first run after a change that is also the latest one.
func TestEdgeChangesFound(t *testing.T) {
	for _, noise := range []float64{0.03, 0.06} {
		for _, at := range []int{1, 99} {
			s := Step(100, at, 0.5, noise)
			r := Run(s, 150, 2, changepoint.Options{})
			t.Logf("%s: found in %d of %d, %d with a false alarm", s.Name, r.Found, r.Series, r.Alarms)
			if r.FoundRate() < 0.95 {
				t.Errorf("%s: found in %.1f%% of %d series, want 95%%", s.Name, 100*r.FoundRate(), r.Series)
			}
		}
	}
}

// A short excursion (three runs 20% slower, then back) is found, both of
// its ends.
func TestShortExcursionFound(t *testing.T) {
	for _, s := range []Scenario{Excursion(30, 14, 3, 0.2, 0.03), Excursion(100, 47, 3, 0.2, 0.03)} {
		n := 300
		if s.Points > 50 {
			n = 200
		}
		r := Run(s, n, 3, changepoint.Options{})
		t.Logf("%s: found in %d of %d, %d with a false alarm", s.Name, r.Found, r.Series, r.Alarms)
		if r.FoundRate() < 0.9 {
			t.Errorf("%s: found in %.1f%% of %d series, want 90%%", s.Name, 100*r.FoundRate(), r.Series)
		}
	}
}

// The verdicts are a function of the points alone (the detector has no
// seed and no state shared between calls): the series of eight seeds,
// analysed in order, in reverse order and from eight goroutines at once,
// give the same changes and undecided candidates.
func TestVerdictsDependOnThePointsAlone(t *testing.T) {
	s := Step(40, 20, 0.08, 0.05)
	type key struct{ seed, i int }
	verdicts := func(k key) string {
		r := changepoint.Analyze(s.Series(uint64(k.seed), k.i), changepoint.Options{Log: true})
		return fmt.Sprint(r)
	}
	var keys []key
	for seed := 1; seed <= 8; seed++ {
		for i := range 20 {
			keys = append(keys, key{seed, i})
		}
	}
	first := map[key]string{}
	for _, k := range keys {
		first[k] = verdicts(k)
	}
	for _, k := range slices.Backward(keys) {
		if v := verdicts(k); v != first[k] {
			t.Fatalf("%v: %s, then %s", k, first[k], v)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(keys))
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range keys[g*len(keys)/8 : (g+1)*len(keys)/8] {
				if v := verdicts(k); v != first[k] {
					errs <- fmt.Sprintf("%v: %s, then concurrently %s", k, first[k], v)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
