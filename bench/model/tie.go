package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// tieCase is an origin latency at (or a hair off) the proxy's request
// timeout: a race in the real proxy.
type tieCase struct {
	name     string
	cfg      string
	latency  string
	rate     float64
	duration time.Duration
}

// ties holds the model against `loadlab origin` and `loadlab proxy` run
// as separate processes (bin; built when ""), where an answer due when
// the request timeout fires races the proxy's timer.
func ties(bin string) error {
	if bin == "" {
		b, cleanup, err := buildBinary()
		if err != nil {
			return err
		}
		defer cleanup()
		bin = b
	}
	staircase := `pools:
  default: {size: 512, overflow: 256, checkout_timeout: 6s}
routes:
  - {name: search, path: /*, upstream: "` + lab.UpstreamPlaceholder + `", pool: default}
`
	second := `pools:
  default: {size: 512, overflow: 256, checkout_timeout: 6s}
routes:
  - {name: search, path: /*, upstream: "` + lab.UpstreamPlaceholder + `", pool: default, request_timeout: 1s}
`
	cases := []tieCase{
		{"staircase the obvious way: 512+256, checkout 6s, origin 5s, request timeout 5s (default)", staircase, "5s", 160, 20 * time.Second},
		{"origin 999ms, request timeout 1s", second, "999ms", 160, 10 * time.Second},
		{"origin 1s, request timeout 1s", second, "1s", 160, 10 * time.Second},
		{"origin 1000.5ms, request timeout 1s", second, "1000500us", 160, 10 * time.Second},
	}
	fmt.Printf("Ties at the request timeout: `loadlab origin` and `loadlab proxy` as separate processes, %s, load average %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine.LoadAvg())
	fmt.Println("| case | rate/s | success model │ real | p50 model │ real | p99 model │ real | within 3 pts / 10% | fragile |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | :---: | :---: |")
	ok := 0
	for _, c := range cases {
		cfg, err := config.Parse([]byte(c.cfg), c.name)
		if err != nil {
			return err
		}
		rc := fmt.Sprintf(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": %q}]}`, c.latency)
		rs, err := recipe.Parse([]byte(rc))
		if err != nil {
			return err
		}
		sp, err := schedule.ParseSpec(strconv.FormatFloat(c.rate, 'f', -1, 64) + "/s")
		if err != nil {
			return err
		}
		sch, err := schedule.New(sp, c.duration)
		if err != nil {
			return err
		}
		ts, err := targets.ReadAll(strings.NewReader("GET http://proxy.model.invalid/x"), targets.Options{})
		if err != nil {
			return err
		}
		pred, err := model.Predict(model.Input{Proxy: cfg, Origin: rs, Seed: 1, Scenarios: []model.Scenario{{Name: "s", Schedule: sch, Targets: ts, ToProxy: []bool{true}, Timeout: 30 * time.Second}}})
		if err != nil {
			return err
		}
		m, err := lab.RunProcesses(bin, c.cfg, rc, sch, 30*time.Second, "/x")
		if err != nil {
			return err
		}
		p := pred.Scenarios[0]
		good := math.Abs(p.Success-m.Success) <= 0.03 && agree(p.Latencies.P50, m.P50) && agree(p.Latencies.P99, m.P99)
		mark := "no"
		if good {
			ok++
			mark = "yes"
		}
		fragile := "no"
		if p.Fragile != "" {
			fragile = "yes"
		}
		fmt.Printf("| %s | %.0f | %.2f%% │ %.2f%% | %s │ %s | %s │ %s | %s | %s |\n", c.name, c.rate, 100*p.Success, 100*m.Success,
			ms(p.Latencies.P50), ms(m.P50), ms(p.Latencies.P99), ms(m.P99), mark, fragile)
	}
	fmt.Printf("\n%d of %d tie points within 3 points of success and 10%% (or 10 ms) of p50 and p99 (load average after: %s)\n", ok, len(cases), machine.LoadAvg())
	return nil
}
