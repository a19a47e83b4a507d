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
		if act, d := ew.plan(tc.left, 0); act != tc.act || d != tc.d {
			t.Errorf("plan(%v) with a 20 µs margin = %v, %v; want %v, %v", tc.left, act, d, tc.act, tc.d)
		}
	}
	// The next request 50 µs after (20,000/s): the pacer wakes at most a
	// quarter of the gap (12.5 µs) early, so it sleeps where a full
	// margin would have it spin.
	for _, tc := range []struct {
		left time.Duration
		act  paceAction
		d    time.Duration
	}{
		{17 * time.Microsecond, paceSpin, 17 * time.Microsecond},
		{18 * time.Microsecond, paceSleep, 18*time.Microsecond - 12500*time.Nanosecond},
		{25 * time.Microsecond, paceSleep, 12500 * time.Nanosecond},
	} {
		if act, d := ew.plan(tc.left, 50*time.Microsecond); act != tc.act || d != tc.d {
			t.Errorf("plan(%v) with a 20 µs margin, the next request 50 µs later = %v, %v; want %v, %v", tc.left, act, d, tc.act, tc.d)
		}
	}
	// 200 µs apart: the margin is below the bound and is kept whole.
	if act, d := ew.plan(25*time.Microsecond, 200*time.Microsecond); act != paceSpin || d != 25*time.Microsecond {
		t.Errorf("plan(25 µs) with a 20 µs margin, the next request 200 µs later = %v, %v; want a 25 µs spin", act, d)
	}
	ew.margin = 0
	if act, d := ew.plan(6*time.Microsecond, 0); act != paceSleep || d != 6*time.Microsecond {
		t.Errorf("plan(6 µs) with no margin = %v, %v; want a 6 µs sleep", act, d)
	}
}

func TestEarlyWakeFollowsTheLowerQuartile(t *testing.T) {
	var ew earlyWake
	// Lateness 14..30 µs (lower quartile 18, median 22), with a 4 ms
	// stall every 10th wake-up: the margin must settle near the lower
	// quartile of the wake-ups that were not stalled (the stalls count
	// as late ones: about 18.5 µs), not near the median, and not be
	// pulled up by the stalls.
	for i := range 5000 {
		late := time.Duration(14+(i*7)%17) * time.Microsecond
		if i%10 == 9 {
			late = 4 * time.Millisecond
		}
		ew.observe(late)
	}
	if m := ew.margin; m < 15*time.Microsecond || m > 21*time.Microsecond {
		t.Errorf("margin %v after lateness 14-30 µs (lower quartile 18) and 10%% stalls", m)
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

func (c *virtualClock) sleep(at, then time.Time) (time.Time, bool) {
	c.slept += at.Sub(c.t)
	c.t = at.Add(c.lateness[c.wakes%len(c.lateness)])
	c.wakes++
	return at, true
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
		if !a.waitPrecise(c.sleep, &ew, due, due.Add(gap)) {
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

// TestMicroBatch: the wake-up for a request is the last due time within
// batchLag of it, and the request after the batch is the next wake-up's.
func TestMicroBatch(t *testing.T) {
	due := time.Unix(1000, 0)
	us := func(n int) time.Time { return due.Add(time.Duration(n) * time.Microsecond) }
	for _, tc := range []struct {
		name       string
		following  []time.Time
		wake, then time.Time
	}{
		{"5,000/s", []time.Time{us(200), us(400)}, due, us(200)},
		{"two within the budget", []time.Time{us(10), us(25), us(26), us(300)}, us(25), us(26)},
		{"at the same instant", []time.Time{due, due, us(100)}, due, us(100)},
		{"the schedule's end", []time.Time{us(5)}, us(5), time.Time{}},
		{"the last request", nil, due, time.Time{}},
	} {
		k := 0
		wake, then := microBatch(due, func() (time.Time, bool) {
			if k == len(tc.following) {
				return time.Time{}, false
			}
			k++
			return tc.following[k-1], true
		})
		if !wake.Equal(tc.wake) || !then.Equal(tc.then) {
			t.Errorf("%s: wake %v, then %v; want %v, %v", tc.name, wake.Sub(due), then, tc.wake.Sub(due), tc.then)
		}
	}
	// A burst longer than the look-ahead: the batch ends there.
	n := 0
	wake, then := microBatch(due, func() (time.Time, bool) { n++; return due, true })
	if n != maxBatch || !wake.Equal(due) || !then.IsZero() {
		t.Errorf("a burst of due times at one instant: looked %d ahead (want %d), wake %v, then %v", n, maxBatch, wake, then)
	}
}

// TestMicroBatchVirtualClock runs the precise pacer's decisions as pace
// makes them (microBatch, then waitPrecise, then the sends of the
// requests now due) on a virtual clock whose timer wakes 2-6 µs late,
// over a schedule of bursts (three requests 10 µs apart every 300 µs):
// no request goes out before its due time, no wake-up is planned more
// than batchLag after the first request it serves, each burst takes one
// wake-up (woken for each request, it would take three), the lag stays
// within the budget plus the timer's error, and the pacer does not spin
// through the bursts.
func TestMicroBatchVirtualClock(t *testing.T) {
	start := time.Unix(1000, 0)
	dueAt := func(i int) time.Time {
		return start.Add(time.Duration(i/3)*300*time.Microsecond + time.Duration(i%3)*10*time.Microsecond)
	}
	const n = 3000
	c := &virtualClock{t: start, readCost: 20 * time.Nanosecond}
	for l := 2; l <= 6; l++ {
		c.lateness = append(c.lateness, time.Duration(l)*time.Microsecond)
	}
	a := &Attacker{harvestEvery: defaultHarvestEvery}
	ew := earlyWake{now: c.now}
	for i := 0; i < n; i++ {
		due := dueAt(i)
		if due.After(c.t) {
			j := i
			wake, then := microBatch(due, func() (time.Time, bool) {
				j++
				return dueAt(j), j < n
			})
			if wake.Before(due) || wake.Sub(due) > batchLag {
				t.Fatalf("request %d: wake-up planned %v after its due time; want 0 to %v", i, wake.Sub(due), batchLag)
			}
			if !a.waitPrecise(c.sleep, &ew, wake, then) {
				t.Fatal("waitPrecise reported a stop")
			}
		}
		lag := c.t.Sub(due)
		if lag < 0 {
			t.Fatalf("request %d sent %v before its due time", i, -lag)
		}
		if i >= 300 && lag > batchLag+10*time.Microsecond { // the margin has settled
			t.Fatalf("request %d sent %v late; want at most the budget %v and the timer's error", i, lag, batchLag)
		}
		c.t = c.t.Add(2 * time.Microsecond) // the hand-off
	}
	if c.wakes > n/3*11/10 {
		t.Errorf("%d wake-ups for %d bursts of three", c.wakes, n/3)
	}
	spun := c.t.Sub(start) - c.slept - n*2*time.Microsecond - lateSum(c)
	if perBurst := spun / (n / 3); perBurst > 10*time.Microsecond {
		t.Errorf("spun %v a burst, want ≤ 10 µs", perBurst)
	}
}

// TestPreciseMicroBatchNeverEarly: at 50,000 requests/s (20 µs apart,
// within the micro-batch's budget: pairs share a wake-up) every request
// is answered and none goes out before its due time.
func TestPreciseMicroBatchNeverEarly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	o := DefaultOptions()
	o.Pacer = PacerPrecise
	o.Schedule = sched(t, "50000/s", 100*time.Millisecond)
	o.CatchUp = time.Minute // a loaded machine may hold the generator back: late, never dropped
	rs, a := run(t, context.Background(), static(t, "GET", srv.URL+"/"), o)
	if len(rs) != 5000 {
		t.Fatalf("%d results, want 5000", len(rs))
	}
	for _, r := range rs {
		if r.Code != 200 || r.Error != "" {
			t.Fatalf("result %+v", r)
		}
		if r.Sent.Before(r.Due) {
			t.Fatalf("request %d sent %v before its due time", r.Seq, r.Due.Sub(r.Sent))
		}
	}
	if st := a.Stats(); st.Dropped != 0 || st.Done != 5000 {
		t.Errorf("stats %+v", st)
	}
}
