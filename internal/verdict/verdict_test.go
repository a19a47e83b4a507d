package verdict

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// synthRun is a run of 15 two-second blocks of 200 requests each, with
// log-normal latencies (median 10 ms × scale, σ 0.3) recorded in real
// metrics histograms and encoded as the archive stores them; the block
// numbered pause (−1: none) is a two-second stall of the runner, every
// request of it answered 2 s late. Value is the run's p99 (ms).
func synthRun(t testing.TB, rng *rand.Rand, id string, scale float64, pause int) Run {
	t.Helper()
	all := metrics.NewHistogram()
	var bs []runblock.Block
	for b := range 15 {
		h := metrics.NewHistogram()
		for range 200 {
			d := time.Duration(scale * 10 * math.Exp(0.3*rng.NormFloat64()) * float64(time.Millisecond))
			if b == pause {
				d += 2 * time.Second
			}
			metrics.RecordLatency(h, d)
			metrics.RecordLatency(all, d)
		}
		bs = append(bs, blockOf(t, b, h))
	}
	return Run{ID: id, Value: float64(all.ValueAtQuantile(99)) / 1e6, Requests: 3000, Blocks: bs}
}

// blockOf is the b-th two-second block of a run, holding h's requests,
// all successful, encoded as the archive stores it.
func blockOf(t testing.TB, b int, h *hdrhistogram.Histogram) runblock.Block {
	t.Helper()
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(h.TotalCount())
	return runblock.Block{Start: time.Duration(b) * runblock.BlockLength, Length: runblock.BlockLength, Requests: n, OK: n, Hist: enc}
}

// pool is a set of synthetic runs of one build, each prepared for p99
// once (their blocks' bootstrap is the costly part); cases draw runs from
// it and give each a run-to-run factor.
func pool(t testing.TB, seed uint64, n int) []Run {
	rng := rand.New(rand.NewPCG(seed, 7))
	rs := make([]Run, n)
	for i := range rs {
		rs[i] = synthRun(t, rng, fmt.Sprintf("r%d", i), 1, -1)
		if err := rs[i].Prepare(P99, 1); err != nil {
			t.Fatal(err)
		}
	}
	return rs
}

// draw returns k distinct runs of the pool, each figure moved by the
// run-to-run noise (σ noise, log scale) and by the factor shift.
func draw(rng *rand.Rand, p []Run, k int, noise, shift float64) []Run {
	out := make([]Run, 0, k)
	for _, i := range rng.Perm(len(p))[:k] {
		r := p[i]
		r.Value *= shift * math.Exp(noise*rng.NormFloat64())
		out = append(out, r)
	}
	return out
}

// Flat replicates with 3% run-to-run noise: no false "worse" at 99% in
// at least 99% of 500 seeded cases, five runs against one (the CI gate's
// newest run) and three against three.
func TestFlatReplicatesNoFalseWorse(t *testing.T) {
	p := pool(t, 1, 16)
	for _, split := range [][2]int{{5, 1}, {3, 3}} {
		worse, same := 0, 0
		for c := range 500 {
			rng := rand.New(rand.NewPCG(uint64(c), 11))
			v, err := Judge(draw(rng, p, split[0], 0.03, 1), draw(rng, p, split[1], 0.03, 1), Options{Stat: P99, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			switch v.Outcome {
			case Worse:
				worse++
				t.Logf("false worse: %s", v.Text)
			case Same:
				same++
			}
		}
		t.Logf("%d against %d: %d worse, %d no change of 500", split[0], split[1], worse, same)
		if worse > 5 {
			t.Errorf("%d against %d: %d false regressions in 500 (want at most 5)", split[0], split[1], worse)
		}
	}
}

// A +15% change of p99 in five runs of the newer build against five
// before it is found, with an interval around it.
func TestChangeFound(t *testing.T) {
	p := pool(t, 2, 16)
	found := 0
	for c := range 50 {
		rng := rand.New(rand.NewPCG(uint64(c), 12))
		v, err := Judge(draw(rng, p, 5, 0.03, 1), draw(rng, p, 5, 0.03, 1.15), Options{Stat: P99, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome == Worse {
			found++
			if !(v.Lo > 0 && v.Lo < v.Change && v.Change < v.Hi) || v.Change < 0.05 || !strings.Contains(v.Text, "p99 worse by +") {
				t.Errorf("%+v", v)
			}
		}
		if v.Outcome == Better || v.Outcome == Same {
			t.Errorf("+15%%: %s", v.Text)
		}
	}
	t.Logf("+15%% found in %d of 50 cases", found)
	if found < 45 {
		t.Errorf("+15%% found in %d of 50 cases, want 45 or more", found)
	}
	// and the same change made better is an improvement
	rng := rand.New(rand.NewPCG(99, 12))
	v, err := Judge(draw(rng, p, 5, 0.01, 1.15), draw(rng, p, 3, 0.01, 1), Options{Stat: P99, Seed: 1})
	if err != nil || v.Outcome != Better {
		t.Errorf("improvement: %v %s", err, v.Text)
	}
}

// A run whose runner paused during one block: its p99 jumps, but the
// block bootstrap sees that one block made it, so the interval widens and
// the verdict is cannot tell, not a regression.
func TestPauseInOneBlockWidensInterval(t *testing.T) {
	p := pool(t, 3, 6)
	rng := rand.New(rand.NewPCG(3, 3))
	paused := synthRun(t, rng, "paused", 1, 7)
	if paused.Value < 3*p[0].Value {
		t.Fatalf("the pause should move p99: %.1f ms against %.1f", paused.Value, p[0].Value)
	}
	v, err := Judge(p[:5], []Run{paused}, Options{Stat: P99, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome == Worse || v.Outcome == Better {
		t.Errorf("a pause in one block made a verdict: %s", v.Text)
	}
	if v.Lo > 0.05 {
		t.Errorf("the interval did not widen down to the minimum: %s", v.Text)
	}
	// without its blocks, the same figure is a regression: the blocks
	// are what told the pause apart
	bare := paused
	bare.Blocks = nil
	v2, err := Judge(p[:5], []Run{bare}, Options{Stat: P99, Seed: 1})
	if err != nil || v2.Outcome != Worse {
		t.Errorf("without blocks: %v %s", err, v2.Text)
	}
	t.Log(v.Text)
}

// Seeds 1..8 give the same verdicts: the bootstrap has enough resamples.
func TestSeedsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var runs []Run
	for i := range 6 {
		runs = append(runs, synthRun(t, rng, fmt.Sprint(i), 1, -1))
	}
	up := synthRun(t, rng, "up", 1.2, -1)
	paused := synthRun(t, rng, "paused", 1, 3)
	for _, r := range []*Run{&runs[0], &runs[1], &runs[2], &runs[3], &runs[4], &runs[5], &up, &paused} {
		if err := r.Prepare(P99, 0); err != nil { // decodes the blocks once; each seed bootstraps anew
			t.Fatal(err)
		}
	}
	cases := [][2][]Run{
		{runs[:3], runs[3:]},
		{runs[:5], {up}},
		{runs[:5], {paused}},
		{runs[:1], runs[1:2]},
		{runs[:1], {up}},
	}
	for i, c := range cases {
		var first Outcome
		for seed := uint64(1); seed <= 8; seed++ {
			v, err := Judge(c[0], c[1], Options{Stat: P99, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if seed == 1 {
				first = v.Outcome
				t.Logf("case %d: %s", i, v.Text)
			} else if v.Outcome != first {
				t.Errorf("case %d: seed %d says %s, seed 1 %s", i, seed, v.Outcome, first)
			}
		}
	}
}

// Cannot tell says why and what would: the power calculation.
func TestCannotTellProposesRepeats(t *testing.T) {
	before := []Run{{ID: "a", Value: 10}, {ID: "b", Value: 10.2}, {ID: "c", Value: 9.9}, {ID: "d", Value: 10.1}, {ID: "e", Value: 9.8}}
	v, err := Judge(before, []Run{{ID: "f", Value: 10.25}}, Options{Stat: P99})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != CannotTell || v.Repeats < 2 || v.Repeats > MaxRepeats {
		t.Fatalf("%+v", v)
	}
	want := fmt.Sprintf("6 runs cannot show a 5.0%% change of p99 at %s run-to-run noise", Size(P99, v.Noise, false))
	if !strings.Contains(v.Text, want) || !strings.Contains(v.Text, fmt.Sprintf("%d repeats of the newer build would", v.Repeats)) {
		t.Errorf("%q lacks %q", v.Text, want)
	}
	// with that many runs of the newer build, the same level is no change
	after := []Run{}
	for i := range v.Repeats {
		after = append(after, Run{ID: fmt.Sprint(i), Value: []float64{10.1, 9.9, 10, 10.05}[i%4]})
	}
	v2, err := Judge(before, after, Options{Stat: P99})
	if err != nil || v2.Outcome != Same {
		t.Errorf("%d repeats: %v %s", v.Repeats, err, v2.Text)
	}
}

// One run a side, no blocks: the run-to-run noise is unknown.
func TestOneRunEachWithoutBlocks(t *testing.T) {
	v, err := Judge([]Run{{ID: "a", Value: 10}}, []Run{{ID: "b", Value: 30}}, Options{Stat: P99})
	if err != nil || v.Outcome != CannotTell || !strings.Contains(v.Text, "run-to-run noise of p99 is unknown") {
		t.Errorf("%v %+v", err, v)
	}
	// with blocks, the runs' blocks bound it (duet benchmarking)
	rng := rand.New(rand.NewPCG(5, 5))
	a, b := synthRun(t, rng, "a", 1, -1), synthRun(t, rng, "b", 3, -1)
	v, err = Judge([]Run{a}, []Run{b}, Options{Stat: P99})
	if err != nil || v.Outcome != Worse || !v.WithinOnly || !strings.Contains(v.Text, "time blocks") {
		t.Errorf("%v %+v", err, v)
	}
}

// Noisy runs are named and left out while clean runs remain; a newer side
// of noisy runs only cannot be judged.
func TestNoisyRuns(t *testing.T) {
	noisy := &runblock.Health{LagP99: 120 * time.Millisecond, Noise: 0.6, Steal: runblock.Unknown, GeneratorSaturated: runblock.Unknown}
	calm := &runblock.Health{LagP99: time.Millisecond, Noise: 0.01, Steal: 0, GeneratorSaturated: 0}
	before := []Run{{ID: "a", Value: 10, Health: calm}, {ID: "b", Value: 10.2, Health: calm}, {ID: "c", Value: 9.9, Health: calm}, {ID: "slow", Value: 25, Health: noisy}}
	after := []Run{{ID: "d", Value: 10.1, Health: calm}, {ID: "e", Value: 9.95, Health: calm}, {ID: "f", Value: 10.05}}
	v, err := Judge(before, after, Options{Stat: P99})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != Same || len(v.Noisy) != 1 || v.Noisy[0].ID != "slow" || v.RunsBefore != 3 || !strings.Contains(v.Text, "left out 1 noisy run: slow (its own schedule lag p99 (120ms)") {
		t.Errorf("%+v", v)
	}
	// the newest runs all noisy: cannot tell, naming them
	v, err = Judge(before[:3], []Run{{ID: "late", Value: 30, Health: noisy}}, Options{Stat: P99})
	if err != nil || v.Outcome != CannotTell || len(v.Noisy) != 1 || !strings.Contains(v.Text, "noisy, so not judged: late") {
		t.Errorf("%v %+v", err, v)
	}
}

// Rates in absolute points: from no failures to 3% failed is a
// regression of 3 points (a relative 5% minimum let it pass).
func TestSuccessInPoints(t *testing.T) {
	before := []Run{{ID: "a", Value: 100, Requests: 3000}, {ID: "b", Value: 100, Requests: 3000}, {ID: "c", Value: 100, Requests: 3000}}
	v, err := Judge(before, []Run{{ID: "d", Value: 97, Requests: 3000}}, Options{Stat: Success})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != Worse || v.Relative || math.Abs(v.Change+3) > 1e-9 || !strings.Contains(v.Text, "success worse by -3.0 points") {
		t.Errorf("%+v", v)
	}
	// 1% failed where none did is a regression by default
	v, err = Judge(before, []Run{{ID: "d", Value: 99, Requests: 3000}, {ID: "e", Value: 98.9, Requests: 3000}}, Options{Stat: Success})
	if err != nil || v.Outcome != Worse {
		t.Errorf("1 point: %v %s", err, v.Text)
	}
	// error rate: higher is worse
	v, err = Judge([]Run{{ID: "a", Value: 0, Requests: 3000}, {ID: "b", Value: 0, Requests: 3000}}, []Run{{ID: "d", Value: 2, Requests: 3000}}, Options{Stat: Errors})
	if err != nil || v.Outcome != Worse || !strings.Contains(v.Text, "+2.0 points") {
		t.Errorf("errors: %v %s", err, v.Text)
	}
	// throughput is relative
	v, err = Judge([]Run{{ID: "a", Value: 100}, {ID: "b", Value: 101}, {ID: "c", Value: 99}}, []Run{{ID: "d", Value: 80}, {ID: "e", Value: 81}}, Options{Stat: Throughput})
	if err != nil || v.Outcome != Worse || !v.Relative {
		t.Errorf("throughput: %v %s", err, v.Text)
	}
}

// The noise floor: replicates of one build set the smallest change judged.
func TestNoiseFloorFromReplicates(t *testing.T) {
	reps := [][]float64{{10, 10.3, 9.7}, {20, 20.8, 19.6}, {15, 14.5, 15.4}} // about 3% run-to-run
	before := []Run{{ID: "a", Value: 10}, {ID: "b", Value: 10.3}, {ID: "c", Value: 9.8}}
	after := []Run{{ID: "d", Value: 11.2}, {ID: "e", Value: 11.0}, {ID: "f", Value: 11.1}} // +11%
	v, err := Judge(before, after, Options{Stat: P99, Replicates: reps})
	if err != nil || v.Outcome != Worse {
		t.Fatalf("fixed 5%%: %v %s", err, v.Text)
	}
	v, err = Judge(before, after, Options{Stat: P99, Replicates: reps, NoiseFloor: true})
	if err != nil || !v.FloorFromReplicates || v.MinChange < 0.15 || v.Outcome == Worse || !strings.Contains(v.Text, "noise floor") {
		t.Errorf("floor: %v %+v", err, v)
	}
}

func TestStudentQuantile(t *testing.T) {
	for _, tc := range []struct{ q, df, want float64 }{{0.995, 1, 63.657}, {0.995, 4, 4.604}, {0.995, 10, 3.169}, {0.975, 30, 2.042}, {0.995, 1000, 2.581}} {
		if got := studentQuantile(tc.q, tc.df); math.Abs(got-tc.want) > 1e-3*tc.want {
			t.Errorf("t(%v, %v) = %v, want %v", tc.q, tc.df, got, tc.want)
		}
	}
}

// A verdict whose interval could not be computed encodes its missing
// figures as null, not as an error.
func TestVerdictJSON(t *testing.T) {
	v, err := Judge([]Run{{ID: "a", Value: 10}}, []Run{{ID: "b", Value: 12}}, Options{Stat: P99})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil || !strings.Contains(string(b), `"lo":null`) || !strings.Contains(string(b), `"outcome":"cannot tell"`) || !strings.Contains(string(b), `"change":0.19999`) {
		t.Fatalf("%v %s", err, b)
	}
}

// Noisy older runs only (their lag inflated their latencies): a
// regression they could only have hidden stands, said so; an improvement
// they could have faked is cannot tell.
func TestNoisyOlderSideOnlyHidesRegressions(t *testing.T) {
	noisy := &runblock.Health{LagP99: 20 * time.Millisecond, Noise: 0.4, Steal: runblock.Unknown, GeneratorSaturated: runblock.Unknown}
	before := []Run{{ID: "a", Value: 30, Health: noisy}, {ID: "b", Value: 31, Health: noisy}, {ID: "c", Value: 29, Health: noisy}}
	v, err := Judge(before, []Run{{ID: "d", Value: 500}, {ID: "e", Value: 520}}, Options{Stat: P99})
	if err != nil || v.Outcome != Worse || !v.NoisyKept || len(v.Noisy) != 3 || !strings.Contains(v.Text, "could only have hidden this change") {
		t.Errorf("regression: %v %+v", err, v)
	}
	v, err = Judge(before, []Run{{ID: "d", Value: 10}, {ID: "e", Value: 10.5}}, Options{Stat: P99})
	if err != nil || v.Outcome != CannotTell || v.NoisyKept {
		t.Errorf("improvement: %v %+v", err, v)
	}
}

// A run the machine stalled as a whole (the target too, not only the
// generator): its lag is 5% of its own tenfold p99, but half of what its
// peers measured. It is named and left out, not taken for a slower build;
// judged on its own share it was clean and made the newer side slower.
func TestStalledRunLeftOutAgainstPeers(t *testing.T) {
	calm := func(lag time.Duration, p99 float64) *runblock.Health {
		h := runblock.LagHealth(0, lag, time.Duration(p99*float64(time.Millisecond)))
		return &h
	}
	before := []Run{{ID: "a", Value: 20, Health: calm(300*time.Microsecond, 20)}, {ID: "b", Value: 20.4, Health: calm(400*time.Microsecond, 20.4)},
		{ID: "c", Value: 19.8, Health: calm(200*time.Microsecond, 19.8)}}
	after := []Run{{ID: "d", Value: 20.2, Health: calm(300*time.Microsecond, 20.2)}, {ID: "e", Value: 19.9, Health: calm(500*time.Microsecond, 19.9)},
		{ID: "stalled", Value: 200, Health: calm(10*time.Millisecond, 200)}}
	v, err := Judge(before, after, Options{Stat: P99})
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome == Worse || v.Outcome == Better || len(v.Noisy) != 1 || v.Noisy[0].ID != "stalled" || v.RunsAfter != 2 ||
		!strings.Contains(v.Text, "left out 1 noisy run: stalled (its own schedule lag p99 (10ms) is 50% of the latency p99 its peers typically measured (20.1ms))") {
		t.Errorf("%+v", v)
	}
	// a typical p99 given for the whole series is the one weighed against
	v, err = Judge(before, after, Options{Stat: P99, TypicalP99: 200 * time.Millisecond})
	if err != nil || len(v.Noisy) != 0 || v.Outcome == Same {
		t.Errorf("typical given: %v %+v", err, v)
	}
}
