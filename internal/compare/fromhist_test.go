package compare

import (
	"math"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// A run rebuilt from its stored histogram (encoded and decoded, as an
// archive keeps it) compares exactly as the run itself.
func TestRunFromHistogram(t *testing.T) {
	base := synth("base", 1, 3000, 20e6, 1, 0.01)
	slow := synth("slow", 2, 3000, 20e6, 1.3, 0.02)
	stored := func(r *Run) *Run {
		l := r.Latencies()
		enc, err := l.Histogram().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hdrhistogram.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		return RunFromHistogram(r.Name, "g", h, r.Metrics.Requests, r.Metrics.Successes, l.Mean, l.Max)
	}
	want := Compare(base, []*Run{slow}, Options{})
	got := Compare(stored(base), []*Run{stored(slow)}, Options{})
	if len(got.Rows) != len(want.Rows) || got.Rows[0].Verdict == "" {
		t.Fatalf("rows: %d, want %d", len(got.Rows), len(want.Rows))
	}
	for i, w := range want.Rows {
		g := got.Rows[i]
		for _, p := range [][2]float64{{g.Base, w.Base}, {g.Value, w.Value}, {g.Lo, w.Lo}, {g.Hi, w.Hi}} {
			if math.Abs(p[0]-p[1]) > 1e-6*math.Max(1, math.Abs(p[1])) {
				t.Errorf("%s %s: got %+v, want %+v", w.Run, w.Stat, g, w)
				break
			}
		}
		if g.Verdict != w.Verdict {
			t.Errorf("%s %s: verdict %q, want %q", w.Run, w.Stat, g.Verdict, w.Verdict)
		}
	}
	if got.Rows[2].Verdict != Slower {
		t.Errorf("p90 of a 30%% slower run: %q", got.Rows[2].Verdict)
	}
}
