package attack

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/origin"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// faultyOrigin is the real origin simulator on loopback, serving "ok" after
// 2 ms, with its per-request fault and delay overrides on; h2c lets the
// net/http client speak HTTP/2 to it too.
func faultyOrigin(t *testing.T) *httptest.Server {
	t.Helper()
	sim := origin.New(origin.Options{Seed: 1})
	if err := sim.LoadRecipe([]byte(`{"body": "ok", "stages": [{"status": 200, "latency": "2ms"}]}`), "test"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(sim)
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = p
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		_ = sim.Close()
	})
	return srv
}

// faultTargets cycles through answers that succeed, and every way a target
// can fail: reset, close, hang (the request times out), a slow body,
// a truncated body, and a slow answer.
func faultTargets(base string) string {
	var b strings.Builder
	for _, q := range []string{"", "?fault=reset", "?fault=close", "?fault=hang", "?fault=slow_body", "?fault=truncate", "?delay=40ms"} {
		fmt.Fprintf(&b, "GET %s/x%s\n", base, q)
	}
	return b.String()
}

// TestEveryScheduledRequestAccountedFor checks the attack's bookkeeping
// for every schedule kind, client and way of stopping, against a target
// that hangs, resets, closes and trickles: every request the schedule
// reached is in the results exactly once (as a success, an error, a
// timeout or a dropped request), and sent + dropped equals the results.
//
// A cancelled attack is cancelled by an event, not at a guessed instant:
// as soon as one success and one failure have come back, while the
// schedule (ten times longer than the uncancelled one) still has requests
// to send and others are in flight; it must not send them all. The bookkeeping is judged on every
// attempt; what may need another attempt is only whether the attempt
// proved anything: on a machine too busy to answer a 2 ms request within
// the request timeout there are no successes, and then the attempt is
// made again with the timeout doubled (150 ms up to 2.4 s), and the test
// fails if even the last could not judge.
func TestEveryScheduledRequestAccountedFor(t *testing.T) {
	srv := faultyOrigin(t)
	type client struct {
		name string
		set  func(*Options)
	}
	clients := []client{
		{"lean harvest", func(o *Options) { o.Client, o.Harvest = "lean", true }},
		{"lean", func(o *Options) { o.Client, o.Harvest = "lean", false }},
		{"std", func(o *Options) { o.Client = "std" }},
		{"h2c", func(o *Options) { o.H2C = true }},
	}
	type kind struct {
		name  string
		sched func(t *testing.T, d time.Duration) *schedule.Schedule
		max   int
	}
	kinds := []kind{
		{"constant", func(t *testing.T, d time.Duration) *schedule.Schedule { return sched(t, "200/s", d) }, 0},
		{"constant few workers", func(t *testing.T, d time.Duration) *schedule.Schedule { return sched(t, "200/s", d) }, 3},
		{"ramp", func(t *testing.T, d time.Duration) *schedule.Schedule { return sched(t, "100/s..300/s", d) }, 0},
		{"steps", func(t *testing.T, d time.Duration) *schedule.Schedule {
			s, err := schedule.ParseSteps("100,300", d/2, 0)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, 0},
		{"unpaced", func(t *testing.T, d time.Duration) *schedule.Schedule { return sched(t, "0", d) }, 4},
	}
	for _, c := range clients {
		for _, k := range kinds {
			for _, stop := range []string{"duration", "cancelled"} {
				t.Run(c.name+"/"+k.name+"/"+stop, func(t *testing.T) {
					t.Parallel()
					d := 300 * time.Millisecond
					if stop == "cancelled" {
						d *= 10
					}
					const attempts = 5
					for attempt, timeout := 1, 150*time.Millisecond; ; attempt, timeout = attempt+1, 2*timeout {
						o := DefaultOptions()
						c.set(&o)
						o.Schedule = k.sched(t, d)
						o.Timeout = timeout
						if k.max > 0 {
							o.MaxWorkers = k.max
						}
						rs, st, miss := accountedRun(t, parse(t, faultTargets(srv.URL)), o, stop == "cancelled")
						checkAccounting(t, rs, st, o.Schedule, stop == "duration")
						if total, bounded := o.Schedule.Total(); stop == "cancelled" && miss == "" && bounded && uint64(len(rs)) >= total {
							t.Errorf("cancelled with half the schedule left, yet all its %d requests were sent", total)
						}
						if t.Failed() || miss == "" {
							return
						}
						if attempt == attempts {
							t.Fatalf("could not judge after %d attempts (timeout up to %v): %s", attempts, timeout, miss)
						}
						t.Logf("attempt %d (timeout %v) could not judge, the machine is busy: %s", attempt, timeout, miss)
					}
				})
			}
		}
	}
}

// accountedRun runs one attack, cancelling it (when cancel is set) as
// soon as a success and a failure have come back. It returns the results,
// the attack's counts, and why the run proved nothing ("" when it did):
// no success and failure among the results, or a cancellation that came
// only in the second half of the schedule (then whether it stopped
// sending could not be told).
func accountedRun(t *testing.T, tr targets.Targeter, o Options, cancel bool) ([]results.Result, Stats, string) {
	t.Helper()
	o.CatchUp = time.Minute // the test machine is shared and may stall
	a, err := New(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var rs []results.Result
	var ok, failed bool
	var cancelledAt time.Duration // since the attack began; 0: not cancelled
	began := time.Now()
	err = a.Run(ctx, func(r *results.Result) {
		rs = append(rs, *r)
		ok = ok || r.Success()
		failed = failed || (!r.Dropped() && !r.Success())
		if cancel && ok && failed && cancelledAt == 0 {
			cancelledAt = time.Since(began)
			stop()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !ok || !failed:
		return rs, a.Stats(), fmt.Sprintf("%d results, a success: %v, a failure: %v", len(rs), ok, failed)
	case cancel && cancelledAt >= o.Schedule.Length()/2:
		return rs, a.Stats(), fmt.Sprintf("cancelled %v after the start, in the second half of the %v schedule", cancelledAt.Round(time.Millisecond), o.Schedule.Length())
	}
	return rs, a.Stats(), ""
}

// checkAccounting asserts the invariants of one attack's results.
func checkAccounting(t *testing.T, rs []results.Result, st Stats, s *schedule.Schedule, complete bool) {
	t.Helper()
	if uint64(len(rs)) != st.Sent+st.Dropped {
		t.Errorf("%d results, but sent %d + dropped %d = %d", len(rs), st.Sent, st.Dropped, st.Sent+st.Dropped)
	}
	seen := make([]int, len(rs))
	for _, r := range rs {
		if r.Seq >= uint64(len(rs)) {
			t.Fatalf("result with seq %d among %d results: a gap in the sequence", r.Seq, len(rs))
		}
		seen[r.Seq]++
		if !r.Dropped() && !r.Success() && r.Error == "" && r.Code == 0 {
			t.Errorf("result %d is neither a success, an error nor dropped: %+v", r.Seq, r)
		}
	}
	for seq, n := range seen {
		if n != 1 {
			t.Errorf("request %d appears %d times", seq, n)
		}
	}
	if total, bounded := s.Total(); complete && bounded && uint64(len(rs)) != total {
		t.Errorf("the schedule had %d requests, the results %d", total, len(rs))
	}
}
