package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// TestLagWatch: the watch falls back only after FallbackAfter of windows
// whose median lag is above the limit; a window on time starts the count
// again, and a stall that delays a minority of a window's requests does
// not count.
func TestLagWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	const every = time.Millisecond // 1,000 requests/s: 250 a window
	feed := func(w *lagWatch, from, n int, lag func(i int) time.Duration) (*Fallback, int) {
		for i := from; i < from+n; i++ {
			if fb, ok := w.observe(t0.Add(time.Duration(i)*every), lag(i)); ok {
				return fb, i
			}
		}
		return nil, -1
	}
	onTime := func(int) time.Duration { return 20 * time.Microsecond }
	late := func(int) time.Duration { return 2 * time.Millisecond }

	w := newLagWatch()
	if fb, _ := feed(&w, 0, 10_000, onTime); fb != nil {
		t.Fatalf("fell back on time: %+v", fb)
	}
	// a stall every window that delays a third of its requests
	stall := func(i int) time.Duration {
		if i%250 < 80 {
			return 5 * time.Millisecond
		}
		return 20 * time.Microsecond
	}
	if fb, _ := feed(&w, 10_000, 10_000, stall); fb != nil {
		t.Fatalf("fell back on stalls of a minority: %+v", fb)
	}
	// three late windows, one on time, then late for good
	if fb, _ := feed(&w, 20_000, 750, late); fb != nil {
		t.Fatalf("fell back before FallbackAfter: %+v", fb)
	}
	if fb, _ := feed(&w, 20_750, 250, onTime); fb != nil {
		t.Fatalf("fell back with a window on time: %+v", fb)
	}
	fb, at := feed(&w, 21_000, 10_000, late)
	if fb == nil {
		t.Fatal("never fell back while every request was late")
	}
	if el := time.Duration(at-21_000) * every; el < FallbackAfter-2*fallbackWindow || el > FallbackAfter+2*fallbackWindow {
		t.Errorf("fell back %v after the lag went up, want about %v", el, FallbackAfter)
	}
	if fb.LateShare < 0.99 || fb.Over < FallbackAfter-fallbackWindow {
		t.Errorf("fallback %+v", fb)
	}

	// at a low rate a window waits for its requests
	w = newLagWatch()
	for i := range 3 * fallbackMinRequests {
		if _, ok := w.observe(t0.Add(time.Duration(i)*time.Second), time.Second); ok {
			t.Fatalf("fell back after %d requests", i+1)
		}
	}
}

// lagP50 is the median lag of rs.
func lagP50(rs []results.Result) time.Duration {
	lags := make([]time.Duration, 0, len(rs))
	for _, r := range rs {
		lags = append(lags, r.Sent.Sub(r.Due))
	}
	slices.Sort(lags)
	return lags[len(lags)/2]
}

// TestDefaultPacerIsPrecise: with the default options the pacer is the
// precise one: against the same loopback server, in the same test, its
// median lag is below the batched pacer's, and its Stats say precise.
// (Its fallback is turned off here: on a loaded test machine it could
// fall back, which TestFallbackUnderBusyNeighbour tests.)
func TestDefaultPacerIsPrecise(t *testing.T) {
	if !PreciseSupported {
		t.Skip("no precise pacer in this build (no timerfd): every attack is batched")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	p50 := map[string]time.Duration{}
	for _, pacer := range []string{"", PacerBatched} {
		o := DefaultOptions() // the default as it is
		if pacer != "" {
			o.Pacer = pacer
		}
		o.Schedule = sched(t, "1000/s", 1500*time.Millisecond)
		o.CatchUp = time.Minute
		a, err := New(static(t, "GET", srv.URL+"/"), o)
		if err != nil {
			t.Fatal(err)
		}
		a.fallbackLimit = time.Hour
		var rs []results.Result
		if err := a.Run(context.Background(), func(r *results.Result) { rs = append(rs, *r) }); err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1500 {
			t.Fatalf("%d results, want 1500", len(rs))
		}
		st := a.Stats()
		want := PacerBatched
		if pacer == "" {
			want = PacerPrecise
		}
		if st.Pacer != want || st.Fallback != nil {
			t.Fatalf("pacer %q: Stats.Pacer %q (fallback %v), want %q", pacer, st.Pacer, st.Fallback, want)
		}
		p50[want] = lagP50(rs)
	}
	t.Logf("lag p50: precise %v, batched %v", p50[PacerPrecise], p50[PacerBatched])
	if p50[PacerPrecise] >= p50[PacerBatched] {
		t.Errorf("the default pacer's median lag %v is not below the batched pacer's %v", p50[PacerPrecise], p50[PacerBatched])
	}
}

// busyNeighbour keeps every processor of the test's runtime busy until
// the returned stop is called: the pacer then runs only when Go's
// scheduler preempts a spinner (every 10 ms or so), as a generator whose
// CPU is saturated does.
func busyNeighbour() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !done.Load() {
				for i := range 1000 {
					x += i
				}
			}
			_ = x
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}

// TestFallbackUnderBusyNeighbour: with the generator's CPU taken by a
// busy neighbour, the precise pacer sees its lag grow, falls back to
// batching on its own and says so in its Stats; every request is still
// accounted for.
func TestFallbackUnderBusyNeighbour(t *testing.T) {
	if !PreciseSupported {
		t.Skip("no precise pacer in this build (no timerfd): nothing to fall back from")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	o := DefaultOptions()
	o.Schedule = sched(t, "2000/s", 3*time.Second)
	stop := busyNeighbour()
	rs, a := run(t, context.Background(), static(t, "GET", srv.URL+"/"), o)
	stop()
	st := a.Stats()
	if len(rs) != 6000 {
		t.Fatalf("%d results, want 6000", len(rs))
	}
	if st.Fallback == nil || st.Pacer != PacerBatched {
		t.Fatalf("no fallback with every processor busy: pacer %q, lag p50 %v", st.Pacer, lagP50(rs))
	}
	t.Logf("fallback: %v", st.Fallback)
	if st.Fallback.At < FallbackAfter-fallbackWindow || st.Fallback.Over < FallbackAfter-fallbackWindow || st.Fallback.LateShare <= 0.5 {
		t.Errorf("fallback %+v", st.Fallback)
	}
}
