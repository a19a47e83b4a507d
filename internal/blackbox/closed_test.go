package blackbox

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// TestClosedLoopAgainstTheLab: N users each sending the next request when
// the previous is answered (the attack's -rate=0 -max-workers N), in the
// model's engine and against the real proxy of 8 workers in front of an
// origin answering after S (50 ms). Below the pool (4 users) each request
// is served at once: about 4 / S = 80/s at S; above it (16 users) the
// pool's 8 workers set the pace, 160/s, and each request waits about one
// service for a worker (2 S).
//
// The model is judged at once, and so is a real measurement faster than
// the users and the pool allow (a busy machine only slows them). A slower
// one may be the shared machine stalling the proxy or the origin, a
// visible part of a 50 ms service and less of a longer one: when the real
// lab misses the model (margins 15%), the test is made again with the
// service and the pool's checkout wait doubled (S up to 200 ms), and fails
// when even the last misses.
func TestClosedLoopAgainstTheLab(t *testing.T) {
	if testing.Short() {
		t.Skip("attacks the lab for about 8 s")
	}
	const attempts = 3
	for attempt, s := 1, 50*time.Millisecond; ; attempt, s = attempt+1, 2*s {
		miss := closedAgainstTheLab(t, s)
		if t.Failed() || miss == "" {
			return
		}
		if attempt == attempts {
			t.Fatalf("with a %v service, the last of %d tries: %s", s, attempts, miss)
		}
		t.Logf("try %d (service %v) could not judge, the machine stalled: %s", attempt, s, miss)
	}
}

// closedAgainstTheLab is one try of TestClosedLoopAgainstTheLab with an
// origin answering after s; it fails the test on a wrong model or a
// measurement faster than possible, and returns how the measurement
// missed the model ("" when it agreed).
func closedAgainstTheLab(t *testing.T, s time.Duration) string {
	t.Helper()
	conf := strings.Replace(boxConfig, "checkout_timeout: 300ms", fmt.Sprintf("checkout_timeout: %v", 6*s), 1)
	rec := strings.Replace(boxRecipe, `"latency": "50ms"`, fmt.Sprintf(`"latency": "%v"`, s), 1)
	box, err := lab.Start(conf, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	cfg, err := config.Parse([]byte(conf), "box")
	if err != nil {
		t.Fatal(err)
	}
	rs := mustRecipe(t, rec)
	ts, err := targets.ReadAll(strings.NewReader("GET http://proxy.model.invalid/page"), targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const d = 4 * time.Second
	var miss []string
	for _, c := range []struct {
		users      int
		throughput float64
		p50        time.Duration
	}{{4, 4 / s.Seconds(), s}, {16, 8 / s.Seconds(), 2 * s}} {
		sch, err := schedule.Parse("0", d)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := model.Predict(model.Input{Proxy: cfg, Origin: rs, Seed: 1, Scenarios: []model.Scenario{{Name: "users", Schedule: sch, Targets: ts, ToProxy: []bool{true}, Timeout: 5 * time.Second, Workers: c.users}}})
		if err != nil {
			t.Fatal(err)
		}
		sp := pr.Scenarios[0]
		predX := sp.Success * float64(sp.Requests) / d.Seconds()
		// The model against the queueing answer it must give.
		if math.Abs(predX-c.throughput) > 0.05*c.throughput || (sp.Latencies.P50-c.p50).Abs() > c.p50/20 || sp.Success < 0.999 {
			t.Errorf("%d users: the model predicts %.0f/s at p50 %v (%.1f%% ok), want %.0f/s at about %v, all ok", c.users, predX, sp.Latencies.P50, 100*sp.Success, c.throughput, c.p50)
		}
		// The model against the real lab.
		m, gotX, err := lab.AttackClosed(box.URL+"/page", c.users, d, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d users: model %.0f/s, %.1f%% ok, p50 %v; real %.0f/s, %.1f%% ok, p50 %v", c.users, predX, 100*sp.Success, sp.Latencies.P50, gotX, 100*m.Success, m.P50)
		if gotX > 1.1*c.throughput || m.P50 < c.p50*9/10 {
			t.Errorf("%d users: the real lab gave %.0f/s at p50 %v, faster than %d users of a %v service can go (%.0f/s at %v)", c.users, gotX, m.P50, c.users, s, c.throughput, c.p50)
		}
		if math.Abs(predX-gotX) > 0.15*gotX || (sp.Latencies.P50-m.P50).Abs() > m.P50*15/100 || math.Abs(sp.Success-m.Success) > 0.03 {
			miss = append(miss, fmt.Sprintf("%d users: model %.0f/s at p50 %v (%.1f%%), real %.0f/s at p50 %v (%.1f%%)", c.users, predX, sp.Latencies.P50, 100*sp.Success, gotX, m.P50, 100*m.Success))
		}
	}
	return strings.Join(miss, "; ")
}

func mustRecipe(t *testing.T, s string) []recipe.Recipe {
	t.Helper()
	rs, err := recipe.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
