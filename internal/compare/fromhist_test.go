package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// A run rebuilt from its stored histogram (what the run archive keeps)
// has the run's figures to the histogram's precision, and compares as the
// run would: no difference against another run of the same distribution,
// a real one against a slower run.
func TestRunFromHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	orig, other, slow := NewRun("orig", 0), NewRun("other", 0), NewRun("slow", 0)
	for i := range 2000 {
		d := time.Duration(10e6 * math.Exp(0.3*rng.NormFloat64()))
		orig.Record(d, i%100 != 0)
		other.Record(time.Duration(10e6*math.Exp(0.3*rng.NormFloat64())), i%100 != 50)
		slow.Record(d*11/10, true)
	}
	opt := Options{Resamples: 300}
	l := orig.Latencies()
	re := NewRunFromHistogram("rebuilt", l.Histogram(), uint64(orig.N()), uint64(orig.OK()))
	rl := re.Latencies()
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99} {
		if a, b := l.Quantile(q), rl.Quantile(q); math.Abs(float64(a-b)) > 0.001*float64(a) {
			t.Errorf("q%.2f: %v rebuilt as %v", q, a, b)
		}
	}
	if math.Abs(float64(l.Mean-rl.Mean)) > 0.001*float64(l.Mean) || re.N() != 2000 || re.OK() != 1980 {
		t.Errorf("mean %v rebuilt as %v; %d requests, %d ok", l.Mean, rl.Mean, re.N(), re.OK())
	}
	for _, s := range []Stat{Mean, P50, P90, P95, P99, Success} {
		same := CompareStat(re, other, s, opt)
		if same.Verdict != NoDiff || same.P < 0.05 {
			t.Errorf("%s against a run of the same distribution: %+v", s, same)
		}
	}
	for _, s := range []Stat{Mean, P50, P95} {
		r := CompareStat(re, slow, s, Options{Resamples: 300, Confidence: 0.99})
		if r.Verdict != Slower || r.Rel < 0.07 || r.Rel > 0.13 || r.P > 0.01 || r.Lo <= 0 {
			t.Errorf("%s against 10%% slower: %+v", s, r)
		}
	}
	if r := CompareStat(re, slow, Success, opt); r.Verdict != Better {
		t.Errorf("success 99%% against 100%%: %+v", r)
	}
}

func TestBootstrapP(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 2, 3}, 2.0 / 4},            // all above: 2·(0+1)/4
		{[]float64{-2, -1, 1, 2}, 1},             // half each side
		{[]float64{-1, 0, 1, 2, 3}, 2 * 2.0 / 6}, // one below, one tie (half), three above
	} {
		if got := bootstrapP(tc.xs); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: p %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// A closed loop rebuilt from its stored histogram with its Span (what the
// results site does for an archived run) has the throughput row the run
// read from its results has: the same figures, interval and verdict, the
// throughput first; without a span it has none to compare.
func TestRunFromHistogramThroughput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	mk := func(name string, users, n int, every time.Duration) *Run {
		r := NewRun(name, 0)
		r.Users = users
		for i := range n {
			code := uint16(200)
			if i%97 == 0 {
				code = 503
			}
			r.Add(&results.Result{Sent: t0.Add(time.Duration(i) * every), Latency: time.Duration(20e6 * math.Exp(0.2*rng.NormFloat64())), Code: code})
		}
		return r
	}
	base, more := mk("4 users", 4, 1500, 5*time.Millisecond), mk("8 users", 8, 2400, 4*time.Millisecond)
	rebuild := func(r *Run, span bool) *Run {
		r.Metrics.Close()
		re := NewRunFromHistogram(r.Name, r.Latencies().Histogram(), uint64(r.N()), uint64(r.OK()))
		re.Users = r.Users
		if span {
			// the archive keeps the throughput; its span is the successes over it
			re.Span = time.Duration(float64(r.OK()) / r.Metrics.Throughput * float64(time.Second))
		}
		return re
	}
	opt := Options{Seed: 1}
	want := Compare(base, []*Run{more}, opt)
	got := Compare(rebuild(base, true), []*Run{rebuild(more, true)}, opt)
	if want.Rows[0].Stat != Throughput || got.Rows[0].Stat != Throughput {
		t.Fatalf("the first rows are %s and %s, want throughput", want.Rows[0].Stat, got.Rows[0].Stat)
	}
	w, g := want.Rows[0], got.Rows[0]
	if w.Verdict != Higher || g.Verdict != w.Verdict || math.Abs(g.Value-w.Value) > 1e-9*w.Value || math.Abs(g.Base-w.Base) > 1e-9*w.Base ||
		math.Abs(g.Lo-w.Lo) > 1e-9*w.Value || math.Abs(g.Hi-w.Hi) > 1e-9*w.Value {
		t.Errorf("throughput rebuilt %+v, from the results %+v", g, w)
	}
	if gc, wc := g.Cells(0.95), w.Cells(0.95); strings.Join(gc, "|") != strings.Join(wc, "|") {
		t.Errorf("throughput cells rebuilt %q, from the results %q", gc, wc)
	}
	if r := Compare(rebuild(base, false), []*Run{rebuild(more, false)}, opt).Rows[0]; r.Stat != Throughput || r.Verdict != NoData {
		t.Errorf("without a span: %+v, want no data", r)
	}
}
