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
// model's engine and against the real proxy of 8 workers in front of a
// 50 ms origin. Below the pool (4 users) each request is served at once:
// about 4 / 50 ms = 80/s at 50 ms; above it (16 users) the pool's 8
// workers set the pace, 160/s, and each request waits about one service
// for a worker (100 ms). Margins are wide (15%): the machine is shared.
func TestClosedLoopAgainstTheLab(t *testing.T) {
	if testing.Short() {
		t.Skip("attacks the lab for about 8 s")
	}
	box, err := lab.Start(boxConfig, boxRecipe)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	cfg, err := config.Parse([]byte(boxConfig), "box")
	if err != nil {
		t.Fatal(err)
	}
	rs := mustRecipe(t, boxRecipe)
	ts, err := targets.ReadAll(strings.NewReader("GET http://proxy.model.invalid/page"), targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const d = 4 * time.Second
	for _, c := range []struct {
		users      int
		throughput float64
		p50        time.Duration
	}{{4, 80, 50 * time.Millisecond}, {16, 160, 100 * time.Millisecond}} {
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
		closedAgrees(t, box.URL+"/page", c.users, d, func(m lab.Measured, gotX float64) bool {
			t.Logf("%d users: model %.0f/s, %.1f%% ok, p50 %v; real %.0f/s, %.1f%% ok, p50 %v", c.users, predX, 100*sp.Success, sp.Latencies.P50, gotX, 100*m.Success, m.P50)
			return math.Abs(predX-gotX) <= 0.15*gotX && (sp.Latencies.P50-m.P50).Abs() <= m.P50*15/100 && math.Abs(sp.Success-m.Success) <= 0.03
		}, fmt.Sprintf("%d users: model %.0f/s at p50 %v (%.1f%%)", c.users, predX, sp.Latencies.P50, 100*sp.Success))
	}
}

func mustRecipe(t *testing.T, s string) []recipe.Recipe {
	t.Helper()
	rs, err := recipe.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
