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
		sched func(t *testing.T) *schedule.Schedule
		max   int
	}
	kinds := []kind{
		{"constant", func(t *testing.T) *schedule.Schedule { return sched(t, "200/s", 300*time.Millisecond) }, 0},
		{"constant few workers", func(t *testing.T) *schedule.Schedule { return sched(t, "200/s", 300*time.Millisecond) }, 3},
		{"ramp", func(t *testing.T) *schedule.Schedule { return sched(t, "100/s..300/s", 300*time.Millisecond) }, 0},
		{"steps", func(t *testing.T) *schedule.Schedule {
			s, err := schedule.ParseSteps("100,300", 150*time.Millisecond, 0)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, 0},
		{"unpaced", func(t *testing.T) *schedule.Schedule { return sched(t, "0", 300*time.Millisecond) }, 4},
	}
	for _, c := range clients {
		for _, k := range kinds {
			for _, stop := range []string{"duration", "cancelled"} {
				t.Run(c.name+"/"+k.name+"/"+stop, func(t *testing.T) {
					t.Parallel()
					o := DefaultOptions()
					c.set(&o)
					o.Schedule = k.sched(t)
					o.Timeout = 150 * time.Millisecond
					if k.max > 0 {
						o.MaxWorkers = k.max
					}
					ctx := context.Background()
					if stop == "cancelled" {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, 120*time.Millisecond)
						defer cancel()
					}
					rs, a := run(t, ctx, parse(t, faultTargets(srv.URL)), o)
					checkAccounting(t, rs, a.Stats(), o.Schedule, stop == "duration")
				})
			}
		}
	}
}

// checkAccounting asserts the invariants of one attack's results.
func checkAccounting(t *testing.T, rs []results.Result, st Stats, s *schedule.Schedule, complete bool) {
	t.Helper()
	if uint64(len(rs)) != st.Sent+st.Dropped {
		t.Errorf("%d results, but sent %d + dropped %d = %d", len(rs), st.Sent, st.Dropped, st.Sent+st.Dropped)
	}
	seen := make([]int, len(rs))
	kinds := map[string]int{}
	for _, r := range rs {
		if r.Seq >= uint64(len(rs)) {
			t.Fatalf("result with seq %d among %d results: a gap in the sequence", r.Seq, len(rs))
		}
		seen[r.Seq]++
		switch {
		case r.Dropped():
			kinds["dropped"]++
		case r.Success():
			kinds["success"]++
		case r.Error != "" || r.Code != 0:
			kinds["failed"]++
		default:
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
	if kinds["success"] == 0 || kinds["failed"] == 0 {
		t.Errorf("want both successes and failures from the faulty target, got %v", kinds)
	}
}
