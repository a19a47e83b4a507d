package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// timed records n requests a second for secs seconds into run from t0,
// latencies log-normal around median times slow(second) (a disturbance).
func timed(run *Run, seed uint64, t0 time.Time, rate, secs int, median time.Duration, slow func(at time.Duration) float64) {
	timedSeq(run, seed, t0, rate, secs, median, slow, -1)
}

// timedSeq is timed whose i-th request has sequence number 2i+side (a
// duet's side 0 or 1), or i when side < 0.
func timedSeq(run *Run, seed uint64, t0 time.Time, rate, secs int, median time.Duration, slow func(at time.Duration) float64, side int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	step := time.Second / time.Duration(rate)
	for i := 0; i < rate*secs; i++ {
		at := time.Duration(i) * step
		lat := time.Duration(float64(median) * math.Exp(0.3*rng.NormFloat64()) * slow(at))
		due := t0.Add(at)
		seq := uint64(i)
		if side >= 0 {
			seq = uint64(2*i + side)
		}
		run.Add(&results.Result{Due: due, Sent: due, Latency: lat, Code: 200, Seq: seq})
	}
}

func steady(time.Duration) float64 { return 1 }

// pausedAt slows the requests due in [from, from+d) by factor.
func pausedAt(from, d time.Duration, factor float64) func(time.Duration) float64 {
	return func(at time.Duration) float64 {
		if at >= from && at < from+d {
			return factor
		}
		return 1
	}
}

func rowOf(rep Report, s Stat) Row {
	for _, r := range rep.Rows {
		if r.Stat == s {
			return r
		}
	}
	return Row{}
}

// A two-second stall in one of two 30 s runs of the same service: the
// per-request bootstrap calls it slower, the run-level judgement widens
// the interval and will not.
func TestRunLevelPauseWidensInsteadOfJudging(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	base, run := NewRun("base", metrics.FromDue), NewRun("run", metrics.FromDue)
	timed(base, 1, t0, 200, 30, 10*time.Millisecond, steady)
	timed(run, 2, t0.Add(time.Hour), 200, 30, 10*time.Millisecond, pausedAt(12*time.Second, 2*time.Second, 3))
	perRequest := Compare(base, []*Run{run}, Options{Seed: 1})
	runLevel := Compare(base, []*Run{run}, Options{Seed: 1, RunLevel: true})
	for _, s := range []Stat{Mean, P90} {
		if v := rowOf(perRequest, s).Verdict; v != Slower {
			t.Errorf("per-request %v: %q, want %q (the stall should fool it)", s, v, Slower)
		}
		r := rowOf(runLevel, s)
		if r.Verdict == Slower || r.Verdict == Faster {
			t.Errorf("run-level %v: %q with interval [%.3f, %.3f]: a stall became a verdict", s, r.Verdict, r.RatioLo, r.RatioHi)
		}
		if !(r.RatioLo <= 1 && r.RatioHi > 1) {
			t.Errorf("run-level %v: interval [%.3f, %.3f] should hold 1", s, r.RatioLo, r.RatioHi)
		}
	}
	// A real 20% regression all along is still seen.
	slow := NewRun("slow", metrics.FromDue)
	timed(slow, 3, t0, 200, 30, 12*time.Millisecond, steady)
	rep := Compare(base, []*Run{slow}, Options{Seed: 1, RunLevel: true})
	for _, s := range []Stat{Mean, P50, P90} {
		if v := rowOf(rep, s).Verdict; v != Slower {
			t.Errorf("20%% slower, %v: %q, want %q", s, v, Slower)
		}
	}
	if g := Gate([]Comparison{{Report: rep}}); g != "worse" || GateCode(g) != 1 {
		t.Errorf("gate %q (%d), want worse (1)", g, GateCode(g))
	}
}

// The verdicts do not depend on the seed.
func TestRunLevelSeedIndependent(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	base, run := NewRun("base", metrics.FromDue), NewRun("run", metrics.FromDue)
	timed(base, 1, t0, 100, 20, 10*time.Millisecond, steady)
	timed(run, 2, t0, 100, 20, 10*time.Millisecond, pausedAt(5*time.Second, 2*time.Second, 1.5))
	want := map[Stat]string{}
	for seed := uint64(1); seed <= 4; seed++ {
		rep := Compare(base, []*Run{run}, Options{Seed: seed, RunLevel: true})
		for _, r := range rep.Rows {
			if seed == 1 {
				want[r.Stat] = r.Verdict
			} else if r.Verdict != want[r.Stat] {
				t.Errorf("seed %d, %v: %q, seed 1 said %q", seed, r.Stat, r.Verdict, want[r.Stat])
			}
		}
	}
}

// A duet's two sides share the machine: noise that slows both at once
// (here one block in four, 40% slower) cancels in the paired bootstrap,
// where the same sides judged as two independent runs cannot tell.
func TestPairedBootstrapCancelsSharedNoise(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	noise := func(at time.Duration) float64 {
		if int(at/(2*time.Second))%4 == 1 {
			return 1.4
		}
		return 1
	}
	// The sides alternate (A even sequence numbers, B odd), a pair every
	// 1/300 s, as a duet attack sends them.
	c := &pairClock{origin: duetOrigin, step: time.Second / 300}
	d := Duet{File: "duet", A: newDuetSide("A", metrics.FromDue, c), B: newDuetSide("B", metrics.FromDue, c)}
	timedSeq(d.A, 1, t0, 300, 24, 10*time.Millisecond, noise, 0)
	timedSeq(d.B, 2, t0.Add(time.Millisecond), 300, 24, 10*time.Millisecond, noise, 1)
	paired := rowOf(ComparePaired(d, Options{Seed: 1}), Mean)
	// The same sides, each resampled on its own.
	a, b := NewRun("A", metrics.FromDue), NewRun("B", metrics.FromDue)
	timed(a, 1, t0, 300, 24, 10*time.Millisecond, noise)
	timed(b, 2, t0.Add(time.Millisecond), 300, 24, 10*time.Millisecond, noise)
	apart := rowOf(Compare(a, []*Run{b}, Options{Seed: 1, RunLevel: true}), Mean)
	t.Logf("paired [%.4f, %.4f] %s; apart [%.4f, %.4f] %s", paired.RatioLo, paired.RatioHi, paired.Verdict, apart.RatioLo, apart.RatioHi, apart.Verdict)
	// The interval is Student's t over the 12 paired blocks (11 degrees
	// of freedom), a little wider than a percentile interval would be.
	if !(paired.RatioLo <= 1 && 1 <= paired.RatioHi) || paired.RatioHi-paired.RatioLo > 0.03 || paired.Verdict != NoChange {
		t.Errorf("paired: [%.4f, %.4f] %s, want 1 within 3%% and %q", paired.RatioLo, paired.RatioHi, paired.Verdict, NoChange)
	}
	if w := apart.RatioHi - apart.RatioLo; w < 2*(paired.RatioHi-paired.RatioLo) {
		t.Errorf("apart: width %.4f, want at least twice the paired %.4f", w, paired.RatioHi-paired.RatioLo)
	}
}

// No verdict rests on a run made on a busy machine (its own schedule lag
// p99 above 10% of its latency p99): a real 20% regression measured by a
// generator that sent late reads cannot tell, with a note saying why.
func TestRunLevelBusyMachineCannotTell(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	base, slow := NewRun("base", metrics.FromDue), NewRun("slow", metrics.FromDue)
	timed(base, 1, t0, 200, 20, 10*time.Millisecond, steady)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 200*20; i++ {
		due := t0.Add(time.Duration(i) * 5 * time.Millisecond)
		lag := time.Duration(rng.IntN(5)) * time.Millisecond // a busy generator
		slow.Add(&results.Result{Due: due, Sent: due.Add(lag), Latency: 12 * time.Millisecond, Code: 200, Seq: uint64(i)})
	}
	rep := Compare(base, []*Run{slow}, Options{Seed: 1, RunLevel: true})
	if v := rowOf(rep, P50).Verdict; v != CannotTell {
		t.Errorf("p50 of a busy run: %q, want %q", v, CannotTell)
	}
	if len(rep.Notes) != 2 || !strings.Contains(rep.Notes[0], "slow ran on a busy machine") || !strings.Contains(rep.Notes[1], "cannot tell") {
		t.Errorf("notes %q", rep.Notes)
	}
}
