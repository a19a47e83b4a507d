package blackbox

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// Input is the fit as the model's input for one attack: a fixed pool of
// Servers workers (the concurrent manager: starting nothing costs
// nothing) whose checkout waits QueueTimeout and then answers
// RefusalStatus, in front of an origin whose latency is the measured
// service-time distribution, slowed by the fitted contention (the USL's
// σ and κ) where it is significant. The exchange costs are zero: the
// measured service time already holds them.
func (f *Fit) Input(sch *schedule.Schedule, timeout time.Duration, seed uint64) (model.Input, error) {
	in := model.Input{Seed: seed, Costs: model.Costs{Dial: time.Nanosecond}}
	status := f.RefusalStatus
	if status < 100 || status > 599 {
		status = 503 // no answer: the model needs a status; the note says so
	}
	wait := f.QueueTimeout
	if wait <= 0 || f.Queue == QueueUnbounded || f.Queue == QueueNotFound {
		wait = timeout + time.Second // only the client's timeout ends the wait
	}
	servers := f.Servers
	if servers > 1_000_000 || servers < 1 {
		servers = int(math.Min(1_000_000, math.Max(1, float64(servers))))
	}
	yaml := fmt.Sprintf(`pools:
  fit: {size: %d, overflow: 0, checkout_timeout: %dus, timeout_status: %d, manager: concurrent}
routes:
  - {path: /*, upstream: "http://127.0.0.1:9", pool: fit, request_timeout: %dms}
`, servers, wait.Microseconds(), status, (timeout + time.Second).Milliseconds())
	cfg, err := config.Parse([]byte(yaml), "fitted model")
	if err != nil {
		return in, err
	}
	in.Proxy = cfg
	rs, err := recipe.Parse([]byte(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": 0}]}`))
	if err != nil {
		return in, err
	}
	rs[0].Stages[0].Latency = f.Service
	if f.USL != nil && f.USL.Significant {
		rs[0].Stages[0].Contention = recipe.Contention{Sigma: f.USL.Sigma, Kappa: f.USL.Kappa}
	}
	in.Origin = rs
	path := "/"
	if i := strings.Index(f.Target, "://"); i >= 0 {
		if j := strings.IndexByte(f.Target[i+3:], '/'); j >= 0 {
			path = f.Target[i+3+j:]
		}
	}
	ts, err := targets.ReadAll(strings.NewReader("GET http://loadlab.model.invalid"+path), targets.Options{})
	if err != nil {
		return in, err
	}
	in.Scenarios = []model.Scenario{{Name: "attack", Schedule: sch, Targets: ts, ToProxy: []bool{true}, Timeout: timeout}}
	return in, nil
}
