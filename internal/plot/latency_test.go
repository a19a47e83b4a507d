package plot

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// noisy makes n results over the given span with a bimodal, heavy-tailed
// latency, some 5xx and some transport errors.
func noisy(n int, span time.Duration, seed uint64) []results.Result {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]results.Result, n)
	for i := range out {
		lat := time.Duration(float64(2*time.Millisecond) * math.Exp(rng.NormFloat64()))
		if rng.IntN(10) == 0 {
			lat = 300*time.Millisecond + time.Duration(rng.IntN(int(200*time.Millisecond)))
		}
		code := uint16(200)
		switch rng.IntN(100) {
		case 0:
			code = 503
		case 1:
			code = 0
		}
		out[i] = results.Result{Sent: t0.Add(span * time.Duration(i) / time.Duration(n)), Latency: lat, Code: code}
	}
	return out
}

func TestLatencyPointsBounds(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		span    time.Duration
		columns int
	}{
		{"short run, few results", 50, 2 * time.Second, 100},
		{"1 minute", 20_000, time.Minute, 200},
		{"1 hour", 40_000, time.Hour, 300},
		{"sub-millisecond burst", 1000, 500 * time.Microsecond, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := noisy(tc.n, tc.span, 1)
			lp := NewLatencyPoints(tc.columns)
			for i := range rs {
				lp.Add(&rs[i])
			}
			if lp.Count() != int64(tc.n) {
				t.Fatalf("count %d, want %d", lp.Count(), tc.n)
			}
			cols := int64(tc.span)/int64(lp.ColumnWidth()) + 1
			if cols >= int64(2*tc.columns) {
				t.Errorf("%d columns of %v, want < %d", cols, lp.ColumnWidth(), 2*tc.columns)
			}
			if lp.ColumnWidth() > time.Millisecond && cols < int64(tc.columns)/2 {
				t.Errorf("only %d columns of %v: coarser than needed", cols, lp.ColumnWidth())
			}
			// While collecting: per column and series, at most one point per
			// occupied latency cell. The latencies here span ~20 doublings.
			if max := int(cols) * 3 * 20 * BucketsPerDoubling; lp.Cells() > max || lp.Cells() > tc.n {
				t.Errorf("%d cells, bound %d", lp.Cells(), max)
			}
			// Output: every series is there, each within columns x rows.
			ss := lp.Series(lp.Start())
			if len(ss) != 3 && tc.n > 1000 {
				t.Errorf("%d series, want 2xx, 5xx and error", len(ss))
			}
			kept := 0
			for _, s := range ss {
				kept += len(s.Points)
				if len(s.Points) > int(cols)*DefaultRows {
					t.Errorf("%s: %d points, bound %d", s.Name, len(s.Points), int(cols)*DefaultRows)
				}
			}
			if kept > lp.Cells() {
				t.Errorf("series hold %d points, more than the %d cells", kept, lp.Cells())
			}
			slowest := map[int64]float64{}
			for _, r := range rs {
				c := floorDiv(r.Sent.Sub(lp.Start()).Nanoseconds(), int64(lp.ColumnWidth()))
				slowest[c] = math.Max(slowest[c], float64(r.Latency)/1e6)
			}
			top := map[int64]float64{}
			for _, s := range ss {
				for _, p := range s.Points {
					c := floorDiv(int64(math.Round(p.X*1e9)), int64(lp.ColumnWidth()))
					top[c] = math.Max(top[c], p.Y)
				}
			}
			// lp.Start() is not column aligned, so compare the overall maxima
			// and the number of occupied columns rather than column by column.
			if len(top) == 0 || math.Abs(maxOf(top)-maxOf(slowest)) > 1e-9 {
				t.Errorf("slowest kept %v, slowest result %v", maxOf(top), maxOf(slowest))
			}
		})
	}
}

func maxOf(m map[int64]float64) float64 {
	v := math.Inf(-1)
	for _, x := range m {
		v = math.Max(v, x)
	}
	return v
}

// Every error shows up: an error in a column full of successes is kept.
func TestLatencyPointsKeepsEveryLoneError(t *testing.T) {
	lp := NewLatencyPoints(100)
	var want int
	for i := 0; i < 100_000; i++ {
		r := results.Result{Sent: t0.Add(time.Duration(i) * time.Millisecond), Latency: 5 * time.Millisecond, Code: 200}
		if i%1000 == 0 { // one refused connection per second, at a distinct latency
			r.Code, r.Latency = 0, time.Duration(i/1000+1)*time.Millisecond*7
			want++
		}
		lp.Add(&r)
	}
	for _, s := range lp.Series(lp.Start()) {
		if s.Name == "error" && len(s.Points) != want {
			t.Errorf("%d errors kept, want all %d", len(s.Points), want)
		}
		if s.Name == "2xx" && len(s.Points) > 200 {
			t.Errorf("%d successes kept for one constant latency, want one per column", len(s.Points))
		}
	}
}

func TestLatencyPointsOrderIndependent(t *testing.T) {
	rs := noisy(20_000, 30*time.Second, 2)
	a := NewLatencyPoints(150)
	for i := range rs {
		a.Add(&rs[i])
	}
	rand.New(rand.NewPCG(9, 9)).Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	b := NewLatencyPoints(150)
	for i := range rs {
		b.Add(&rs[i])
	}
	if !reflect.DeepEqual(a.Series(t0), b.Series(t0)) {
		t.Fatal("shuffled input gave different points")
	}
}

// A run of 200k results renders to a small SVG.
func TestLatencySVGStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	rs := noisy(200_000, 10*time.Minute, 3)
	c := NewCollector(DefaultColumns)
	for i := range rs {
		c.Add(&rs[i])
	}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, LatencyChart("1M", c.Axis(), c.Latency)); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 512<<10 {
		t.Errorf("SVG of 200k results is %d bytes, want < 512 KiB", buf.Len())
	}
	st := parseSVG(t, buf.Bytes())
	n := LatencyChart("", c.Axis(), c.Latency).NumPoints()
	if st.dots != n {
		t.Errorf("%d dots for %d kept points", st.dots, n)
	}
	t.Logf("200k results: %d cells, %d points drawn, SVG %d bytes", c.Latency.Cells(), n, buf.Len())
}
