package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestEarlyWakePlan(t *testing.T) {
	ew := earlyWake{margin: 20 * time.Microsecond}
	for _, tc := range []struct {
		left time.Duration
		act  paceAction
		d    time.Duration
	}{
		{-time.Millisecond, paceSend, 0},
		{0, paceSend, 0},
		{time.Nanosecond, paceSpin, time.Nanosecond},
		{20 * time.Microsecond, paceSpin, 20 * time.Microsecond},
		{25 * time.Microsecond, paceSpin, 25 * time.Microsecond}, // within spinBelow of the margin
		{26 * time.Microsecond, paceSleep, 6 * time.Microsecond},
		{200 * time.Microsecond, paceSleep, 180 * time.Microsecond},
		{time.Second, paceSleep, time.Second - 20*time.Microsecond},
	} {
		if act, d := ew.plan(tc.left); act != tc.act || d != tc.d {
			t.Errorf("plan(%v) with a 20 µs margin = %v, %v; want %v, %v", tc.left, act, d, tc.act, tc.d)
		}
	}
	ew.margin = 0
	if act, d := ew.plan(6 * time.Microsecond); act != paceSleep || d != 6*time.Microsecond {
		t.Errorf("plan(6 µs) with no margin = %v, %v; want a 6 µs sleep", act, d)
	}
}

func TestEarlyWakeFollowsTheMedian(t *testing.T) {
	var ew earlyWake
	// Lateness 14..30 µs (median 22), with a 4 ms stall every 10th
	// wake-up: the margin must settle near the median, not be pulled up
	// by the stalls.
	for i := range 5000 {
		late := time.Duration(14+(i*7)%17) * time.Microsecond
		if i%10 == 9 {
			late = 4 * time.Millisecond
		}
		ew.observe(late)
	}
	if m := ew.margin; m < 18*time.Microsecond || m > 30*time.Microsecond {
		t.Errorf("margin %v after lateness 14-30 µs (median 22) and 10%% stalls", m)
	}
	for range 1000 {
		ew.observe(time.Second)
	}
	if ew.margin != maxEarly {
		t.Errorf("margin %v after late wake-ups only, want the cap %v", ew.margin, maxEarly)
	}
	for range 1000 {
		ew.observe(0)
	}
	if ew.margin != 0 {
		t.Errorf("margin %v after punctual wake-ups only, want 0", ew.margin)
	}
}

// virtualClock is a clock that moves only when read (readCost a read, as
// a real clock read takes time, so a spin ends) or slept on (the sleep
// ends late by the next of lateness, in turn).
type virtualClock struct {
	t        time.Time
	readCost time.Duration
	lateness []time.Duration
	wakes    int
	slept    time.Duration
}

func (c *virtualClock) now() time.Time {
	c.t = c.t.Add(c.readCost)
	return c.t
}

func (c *virtualClock) sleep(d time.Duration) bool {
	c.t = c.t.Add(d + c.lateness[c.wakes%len(c.lateness)])
	c.wakes++
	c.slept += d
	return true
}

// TestPreciseDecisionsVirtualClock runs the precise pacer's wait
// (waitPrecise: when to sleep, spin and send) on a virtual clock whose
// timer wakes 18-30 µs late: every request goes out at or after its due
// time, the lag once the margin has settled is a few microseconds, and
// the pacer spins a few microseconds a request, far less than it sleeps.
func TestPreciseDecisionsVirtualClock(t *testing.T) {
	const gap = 200 * time.Microsecond // 5,000 requests/s
	start := time.Unix(1000, 0)
	c := &virtualClock{t: start, readCost: 20 * time.Nanosecond}
	for l := 18; l <= 30; l++ {
		c.lateness = append(c.lateness, time.Duration(l)*time.Microsecond)
	}
	a := &Attacker{harvestEvery: defaultHarvestEvery}
	ew := earlyWake{now: c.now}
	var lagSum time.Duration
	counted := 0
	for i := range 20000 {
		due := start.Add(time.Duration(i+1) * gap)
		if !a.waitPrecise(c.sleep, &ew, due) {
			t.Fatal("waitPrecise reported a stop")
		}
		sent := c.t
		if sent.Before(due) {
			t.Fatalf("request %d sent %v before its due time", i, due.Sub(sent))
		}
		if i >= 1000 { // the margin starts at 0 and grows 1 µs a wake-up
			lagSum += sent.Sub(due)
			counted++
		}
		c.t = c.t.Add(10 * time.Microsecond) // the hand-off and the send
	}
	if mean := lagSum / time.Duration(counted); mean > 5*time.Microsecond {
		t.Errorf("mean lag %v on a timer 18-30 µs late, want ≤ 5 µs", mean)
	}
	if c.wakes > 20000*11/10 {
		t.Errorf("%d wake-ups for 20000 requests", c.wakes)
	}
	spun := c.t.Sub(start) - c.slept - 20000*10*time.Microsecond - lateSum(c)
	if perReq := spun / 20000; perReq > 10*time.Microsecond {
		t.Errorf("spun %v a request, want ≤ 10 µs", perReq)
	}
}

// lateSum is how much later than asked the virtual clock's sleeps ended.
func lateSum(c *virtualClock) time.Duration {
	var s time.Duration
	for i := range c.wakes {
		s += c.lateness[i%len(c.lateness)]
	}
	return s
}

// TestPreciseNeverEarly: at 2,000 requests/s (a wake-up, an early margin
// and a spin for each) every request is answered and none goes out
// before its due time.
func TestPreciseNeverEarly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	o := DefaultOptions()
	o.Pacer = PacerPrecise
	o.Schedule = sched(t, "2000/s", 500*time.Millisecond)
	rs, a := run(t, context.Background(), static(t, "GET", srv.URL+"/"), o)
	if len(rs) != 1000 {
		t.Fatalf("%d results, want 1000", len(rs))
	}
	for _, r := range rs {
		if r.Code != 200 || r.Error != "" {
			t.Fatalf("result %+v", r)
		}
		if r.Sent.Before(r.Due) {
			t.Fatalf("request %d sent %v before its due time", r.Seq, r.Due.Sub(r.Sent))
		}
	}
	if st := a.Stats(); st.Dropped != 0 || st.Done != 1000 {
		t.Errorf("stats %+v", st)
	}
}
