package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

var t0 = time.Unix(1_795_296_174, 0)

func res(sentMs int, lat time.Duration, code uint16, err string) results.Result {
	s := t0.Add(time.Duration(sentMs) * time.Millisecond)
	return results.Result{Sent: s, Latency: lat, Code: code, Error: err, Method: "GET", URL: "http://127.0.0.1/"}
}

func addAll(m *Metrics, rs []results.Result) {
	for i := range rs {
		m.Add(&rs[i])
	}
	m.Close()
}

func TestVegetaFormulas(t *testing.T) {
	rs := []results.Result{
		res(0, 10*time.Millisecond, 200, ""),
		res(1000, 30*time.Millisecond, 500, "500 Internal Server Error"),
		res(500, 20*time.Millisecond, 0, "connection refused"),
		res(2000, 5*time.Millisecond, 302, ""),
		res(1500, 1*time.Millisecond, 500, "500 Internal Server Error"),
	}
	rs[0].BytesIn, rs[3].BytesIn, rs[1].BytesOut = 100, 50, 7
	m := New()
	addAll(m, rs)
	tests := []struct {
		name      string
		got, want any
	}{
		{"requests", m.Requests, uint64(5)},
		{"duration", m.Duration, 2 * time.Second},
		{"wait", m.Wait, 5 * time.Millisecond},
		{"rate", m.Rate, 2.5},
		{"throughput", m.Throughput, 2 / 2.005},
		{"success", m.Success, 0.4},
		{"min", m.Latencies.Min, time.Millisecond},
		{"max", m.Latencies.Max, 30 * time.Millisecond},
		{"mean", m.Latencies.Mean, 13200 * time.Microsecond},
		{"total", m.Latencies.Total, 66 * time.Millisecond},
		{"bytes in", m.BytesIn, Bytes{150, 30}},
		{"bytes out", m.BytesOut, Bytes{7, 1.4}},
		{"codes", fmt.Sprint(m.Codes()), "[0 200 302 500]"},
		{"code 500", m.StatusCodes[500], uint64(2)},
		{"errors in first-seen order", fmt.Sprint(m.ErrorTexts()), "[500 Internal Server Error connection refused]"},
		{"error count", m.Errors[0].Count, uint64(2)},
		{"no due times: same latencies", m.OtherLatencies.Mean, m.Latencies.Mean},
		{"not lagged", m.DueDiffers(), false},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestPercentilesMonotoneWithinPrecisionNeverAboveMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		gen  func() time.Duration
	}{
		{"uniform ms", func() time.Duration { return time.Duration(1e6 + rng.IntN(30e6)) }},
		{"long tail", func() time.Duration { return time.Duration(rng.ExpFloat64() * 5e6) }},
		{"sub-microsecond", func() time.Duration { return time.Duration(rng.IntN(900)) }},
		{"one value", func() time.Duration { return 12345678 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			var exact []time.Duration
			for i := 0; i < 20000; i++ {
				r := res(i, tc.gen(), 200, "")
				exact = append(exact, r.Latency)
				m.Add(&r)
			}
			m.Close()
			sort.Slice(exact, func(i, j int) bool { return exact[i] < exact[j] })
			prev := time.Duration(-1)
			for q := 0.0; q <= 1.0; q += 0.0005 {
				v := m.Quantile(q)
				if v < prev || v > m.Latencies.Max || v < m.Latencies.Min {
					t.Fatalf("q=%v: %v (prev %v, min %v, max %v)", q, v, prev, m.Latencies.Min, m.Latencies.Max)
				}
				prev = v
			}
			for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
				want := exact[int(q*float64(len(exact)))-1]
				got := m.Quantile(q)
				if d := float64(got - want); d > 0.001*float64(want)+1000 || -d > 0.001*float64(want)+1000 {
					t.Errorf("q=%v: got %v, exact %v", q, got, want)
				}
			}
			if m.Quantile(1) != exact[len(exact)-1] || m.Quantile(0) != exact[0] {
				t.Errorf("ends: %v..%v, exact %v..%v", m.Quantile(0), m.Quantile(1), exact[0], exact[len(exact)-1])
			}
		})
	}
}

func TestDueLatencyLagAndDropped(t *testing.T) {
	var rs []results.Result
	for i := 0; i < 10; i++ {
		r := res(i*10, 2*time.Millisecond, 200, "")
		r.Due = r.Sent
		if i >= 7 { // a stall: the last three went out 50ms late
			r.Due = r.Sent.Add(-50 * time.Millisecond)
		}
		rs = append(rs, r)
	}
	drop := res(95, 0, 0, results.DroppedPrefix+"max-workers reached")
	drop.Due = drop.Sent
	rs = append(rs, drop)
	m := New()
	addAll(m, rs)
	if m.Requests != 11 || m.Dropped != 1 || m.Latencies.Count != 10 {
		t.Fatalf("requests %d dropped %d samples %d", m.Requests, m.Dropped, m.Latencies.Count)
	}
	if !m.DueDiffers() || m.Lag.Late != 3 || m.Lag.Max != 50*time.Millisecond {
		t.Fatalf("lag: %+v differs=%v", m.Lag, m.DueDiffers())
	}
	if m.Latencies.Max != 52*time.Millisecond || m.OtherLatencies.Max != 2*time.Millisecond {
		t.Fatalf("due max %v send max %v", m.Latencies.Max, m.OtherLatencies.Max)
	}
	if m.StatusCodes[0] != 1 || m.Errors[0].Text != results.DroppedPrefix+"max-workers reached" {
		t.Fatalf("a drop is a failed request: codes %v errors %v", m.StatusCodes, m.Errors)
	}
}

func TestBreakdownAndCaps(t *testing.T) {
	m := NewWith(Options{MaxGroups: 2, MaxErrors: 2})
	var rs []results.Result
	for i := 0; i < 30; i++ {
		r := res(i, time.Duration(i+1)*time.Millisecond, 200, "")
		r.Attack = []string{"search", "news"}[i%2]
		r.URL = fmt.Sprintf("http://127.0.0.1/%d", i%3)
		r.Step = uint32(2 - i%3)
		if i%5 == 0 {
			r.Code, r.Error = 0, fmt.Sprint("error ", i)
		}
		rs = append(rs, r)
	}
	addAll(m, rs)
	b := m.Breakdown()
	keys := func(gs []*Group) string {
		s := ""
		for _, g := range gs {
			s += fmt.Sprintf("%s=%d ", g.Key, g.Metrics.Requests)
		}
		return s
	}
	for _, tc := range []struct{ name, got, want string }{
		{"attack", keys(b.ByAttack()), "search=15 news=15 "},
		{"target", keys(b.ByTarget()), "GET http://127.0.0.1/0=10 GET http://127.0.0.1/1=10 (other)=10 "},
		{"step", keys(b.ByStep()), "1=10 2=10 (other)=10 "},
		{"errors", fmt.Sprint(m.ErrorTexts(), m.ErrorsOmitted), "[error 0 error 5] 4"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	g := b.ByAttack()[0].Metrics
	if g.Latencies.Count != 15 || g.OtherLatencies.Count != 0 || g.Latencies.P50 == 0 {
		t.Fatalf("group latencies: %+v", g.Latencies)
	}
}

func TestMergeEqualsOnePass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var rs []results.Result
	for i := 0; i < 3000; i++ {
		r := res(i, time.Duration(rng.IntN(50e6)), []uint16{200, 500}[rng.IntN(2)], "")
		if r.Code == 500 {
			r.Error = fmt.Sprint("e", rng.IntN(4))
		}
		rs = append(rs, r)
	}
	one, a, b := New(), New(), New()
	addAll(one, rs)
	addAll(a, rs[:1000])
	addAll(b, rs[1000:])
	a.Merge(b)
	a.Close()
	if fmt.Sprint(a.Requests, a.Rate, a.Throughput, a.Latencies.P99, a.Latencies.Mean, a.StatusCodes, len(a.Errors)) !=
		fmt.Sprint(one.Requests, one.Rate, one.Throughput, one.Latencies.P99, one.Latencies.Mean, one.StatusCodes, len(one.Errors)) {
		t.Fatalf("merged %+v\none pass %+v", a, one)
	}
	ga, g1 := a.Breakdown().ByTarget(), one.Breakdown().ByTarget()
	if len(ga) != len(g1) || ga[0].Metrics.Requests != g1[0].Metrics.Requests {
		t.Fatalf("merged target groups %d, one pass %d", len(ga), len(g1))
	}
}

func BenchmarkAdd(b *testing.B) {
	rs := make([]results.Result, 1024)
	for i := range rs {
		rs[i] = res(i, time.Duration(i*7919%20000)*time.Microsecond, 200, "")
		rs[i].Due = rs[i].Sent.Add(-time.Duration(i%50) * time.Microsecond)
		if i%20 == 0 {
			rs[i].Code, rs[i].Error = 500, "500 Internal Server Error"
		}
	}
	m := New()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Add(&rs[i%len(rs)])
	}
}

func TestIntervalsNonCumulative(t *testing.T) {
	var got []string
	iv := NewIntervals(time.Second, Options{}, func(in *Interval) error {
		got = append(got, fmt.Sprintf("%d:%d", in.Start.Sub(t0)/time.Second, in.Requests))
		return nil
	})
	// completion order: the request sent at 0.9s finishes after one sent at 1.1s
	for _, ms := range []int{100, 1100, 900, 1200, 3500, 3600} {
		r := res(ms, time.Millisecond, 200, "")
		iv.Add(&r)
	}
	// a straggler far behind
	for s := 4; s < 4+MaxOpenIntervals+2; s++ {
		r := res(s*1000, time.Millisecond, 200, "")
		iv.Add(&r)
	}
	late := res(100, time.Millisecond, 200, "")
	iv.Add(&late)
	if err := iv.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"0:2", "1:2", "2:0", "3:2", "4:1"}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("intervals %v, want prefix %v", got[:len(want)], want)
		}
	}
	if iv.Stragglers != 1 || len(got) != 4+MaxOpenIntervals+2 {
		t.Fatalf("stragglers %d, %d intervals", iv.Stragglers, len(got))
	}
}

func TestBuckets(t *testing.T) {
	bs, err := ParseBuckets("[0,5ms, 10ms,1s]")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHist(bs)
	for _, d := range []time.Duration{0, 4 * time.Millisecond, 5 * time.Millisecond, 999 * time.Millisecond, time.Hour} {
		h.Add(d)
	}
	if fmt.Sprint(h.Counts, h.Total) != "[2 1 1 1] 5" {
		t.Fatalf("counts %v total %d", h.Counts, h.Total)
	}
	for _, bad := range []string{"0,5ms", "[5ms,1ms]", "[x]", "[-1s]"} {
		if _, err := ParseBuckets(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestMemoryBounded feeds results with ever new errors, URLs, steps and
// attack names: the heap after 150k results must not exceed the heap after
// 20k by more than a few hundred kB (no per-result storage).
func TestMemoryBounded(t *testing.T) {
	m := New()
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	feed := func(from, to int) {
		for i := from; i < to; i++ {
			r := res(i, time.Duration(i%100000)*time.Microsecond, 500, fmt.Sprint("error ", i))
			r.URL = fmt.Sprint("http://127.0.0.1/", i)
			r.Attack = fmt.Sprint("a", i)
			r.Step = uint32(i)
			m.Add(&r)
		}
	}
	feed(0, 20_000)
	h1 := heap()
	feed(20_000, 150_000)
	h2 := heap()
	m.Close()
	t.Logf("heap after 20k: %d kB, after 150k: %d kB (histogram %d kB)", h1>>10, h2>>10, HistogramBytes()>>10)
	if h2 > h1+512<<10 {
		t.Fatalf("heap grew from %d kB to %d kB", h1>>10, h2>>10)
	}
}

func FuzzParseBuckets(f *testing.F) {
	for _, s := range []string{"[0,5ms,10ms,25ms,50ms,100ms,1s]", "[]", "[1h]", "[0, 1ms]", "[5ms,1ms]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bs, err := ParseBuckets(s)
		if err != nil {
			return
		}
		for i := 1; i < len(bs); i++ {
			if bs[i] <= bs[i-1] {
				t.Fatalf("%q: buckets not ascending: %v", s, bs)
			}
		}
		h := NewHist(bs)
		h.Add(time.Millisecond)
		var sum uint64
		for _, c := range h.Counts {
			sum += c
		}
		if sum+h.Below != h.Total {
			t.Fatalf("%q: counts %v below %d total %d", s, h.Counts, h.Below, h.Total)
		}
	})
}

// TestIntervalsPartial: a 200/s attack of 1 s starting at .905 s falls in two
// wall-clock seconds, 19 requests in the first and 181 in the second. Both
// intervals are partial and their rates are per second of the part the
// attack covered, so neither reads as 19 or 181 req/s; a full interval in
// the middle of a longer attack is not partial.
func TestIntervalsPartial(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		requests []uint64
		partial  []bool
	}{
		{"one second across two intervals", 200, []uint64{19, 181}, []bool{true, true}},
		{"three seconds", 600, []uint64{19, 200, 200, 181}, []bool{true, false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []*Interval
			iv := NewIntervals(time.Second, Options{}, func(in *Interval) error { got = append(got, in); return nil })
			for i := range tc.n {
				r := res(905+i*5, time.Millisecond, 200, "")
				iv.Add(&r)
			}
			if err := iv.Close(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.requests) {
				t.Fatalf("%d intervals, want %d", len(got), len(tc.requests))
			}
			for i, in := range got {
				if in.Requests != tc.requests[i] || in.Partial != tc.partial[i] {
					t.Errorf("interval %d: %d requests, partial %v; want %d, %v", i, in.Requests, in.Partial, tc.requests[i], tc.partial[i])
				}
				if math.Abs(in.Rate-200) > 0.01 || math.Abs(in.Throughput-200) > 0.01 {
					t.Errorf("interval %d (covered %v): rate %.2f/s, throughput %.2f/s; want 200", i, in.Covered, in.Rate, in.Throughput)
				}
			}
			if first := got[0]; first.Covered != 95*time.Millisecond {
				t.Errorf("first interval covered %v, want 95ms (from the first send at .905 to the end)", first.Covered)
			}
		})
	}
}

// The lag p99 is over every sent request with a due time (on-time ones
// count as 0), merges exactly, and is never above the maximum.
func TestLagP99(t *testing.T) {
	base := time.Unix(1_795_296_174, 0)
	a, b := New(), New()
	for i := 0; i < 1000; i++ {
		lag := time.Duration(0)
		if i%100 == 0 {
			lag = time.Duration(i+1) * time.Millisecond // 10 late requests: 1% + ...
		}
		r := results.Result{Seq: uint64(i), Due: base, Sent: base.Add(lag), Latency: time.Millisecond, Code: 200}
		if i < 500 {
			a.Add(&r)
		} else {
			b.Add(&r)
		}
	}
	a.Merge(b)
	a.Close()
	// 10 of 1000 requests late, by 1 to 901 ms: 99% sent on time.
	if a.Lag.P99 != 0 || a.Lag.Max != 901*time.Millisecond {
		t.Errorf("lag p99 %v max %v, want 0 and 901ms", a.Lag.P99, a.Lag.Max)
	}
	c := New()
	for i := 0; i < 100; i++ {
		r := results.Result{Seq: uint64(i), Due: base, Sent: base.Add(time.Duration(i+1) * time.Millisecond), Latency: time.Millisecond, Code: 200}
		c.Add(&r)
	}
	c.Close()
	if c.Lag.P99 < 98*time.Millisecond || c.Lag.P99 > c.Lag.Max {
		t.Errorf("lags 1..100 ms: p99 %v (max %v)", c.Lag.P99, c.Lag.Max)
	}
}
