// Command model benchmarks loadlab's model: how long it takes to predict
// the search-flood incident at its own numbers (300 s steps at 1,000 to
// 1,200 requests/s through 512 + 4,096 workers), and how close its
// predictions come to real runs of the origin and proxy on loopback over a
// grid of rates, latencies, pool sizes, overflow, timeouts and manager
// costs. It prints tables for bench/README.md.
//
//	go run ./bench/model                 # timing only (seconds)
//	go run ./bench/model -grid           # and the accuracy grid (minutes)
//	go run ./bench/model -blackbox -only=X # HAProxy, nginx and the proxy as black boxes: calibrated, then predicted and measured (minutes)
//	go run ./bench/model -tie            # and the ties at the request timeout, real processes (about a minute)
//	go run ./bench/model -wake           # and the serial manager's dial and close after its sleep, through the real pool (10 s)
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

func main() {
	grid := flag.Bool("grid", false, "also run the accuracy grid: real attacks through the real proxy")
	stepDur := flag.Duration("step", 8*time.Second, "grid: length of each real run")
	only := flag.String("only", "", "grid: run only the cases whose name contains this")
	tie := flag.Bool("tie", false, "also hold the model against `loadlab origin` and `loadlab proxy` processes where the origin's latency equals the request timeout")
	bin := flag.String("bin", "", "tie: the loadlab binary (default: built from ./cmd/loadlab)")
	box := flag.Bool("blackbox", false, "also calibrate HAProxy, nginx and `loadlab proxy` (real processes on loopback) and hold the fitted queue against real attacks at 0.5x to 2x its knee")
	calStep := flag.Duration("cal-step", 2*time.Second, "blackbox: length of each calibration probe")
	wake := flag.Bool("wake", false, "also measure the real serial manager's dial and close after sleeping its costs, against the model's Costs")
	flag.Parse()
	runtime.GOMAXPROCS(1) // the goal is stated for one core
	if err := timing(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *tie {
		runtime.GOMAXPROCS(runtime.NumCPU())
		if err := ties(*bin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if *wake {
		runtime.GOMAXPROCS(runtime.NumCPU())
		if err := wakes(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if *box {
		runtime.GOMAXPROCS(runtime.NumCPU())
		if err := blackboxes(*bin, *stepDur, *only, *calStep); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if *grid {
		runtime.GOMAXPROCS(runtime.NumCPU())
		if err := accuracy(*stepDur, *only); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// timing predicts every step of the full-scale incident replay at the
// seed's 300 s per step, on one core.
func timing() error {
	p, err := plan.Load("examples/000-incident-replay-full-scale/plan.yaml", plan.Override{Name: "duration", Value: "300s"})
	if err != nil {
		return err
	}
	fmt.Printf("Model timing, GOMAXPROCS=1, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Println("| step | requests | simulated | wall | requests/s simulated | search success | news success |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	var worst time.Duration
	for _, st := range p.Steps {
		began := time.Now()
		sp := model.PredictStep(p, st, 1)
		wall := time.Since(began)
		if sp.Err != nil {
			return sp.Err
		}
		worst = max(worst, wall)
		var n uint64
		for _, s := range sp.Prediction.Scenarios {
			n += s.Requests
		}
		fmt.Printf("| %s | %d | 300 s | %.3f s | %.0f | %.2f%% | %.2f%% |\n", st.Name, n, wall.Seconds(), float64(n)/wall.Seconds(),
			100*sp.Prediction.Scenario("search").Success, 100*sp.Prediction.Scenario("news").Success)
	}
	fmt.Printf("\nslowest step: %.3f s (goal: under 2 s on one core)\n\n", worst.Seconds())
	return nil
}

// gridCase is one configuration of the accuracy grid.
type gridCase struct {
	name              string
	size              int
	over              int
	checkout, request time.Duration
	manager           string
	start, stop       time.Duration
	latency           string // recipe latency
	rates             []float64
}

func (c gridCase) yaml() string {
	costs := ""
	if c.manager == "serial" && (c.start > 0 || c.stop > 0) {
		costs = fmt.Sprintf(", worker_start_cost: %s, worker_stop_cost: %s", c.start, c.stop)
	}
	return fmt.Sprintf(`pools:
  default: {size: %d, overflow: %d, checkout_timeout: %s, manager: %s%s}
routes:
  - {name: all, path: /*, upstream: "%s", pool: default, request_timeout: %s}
`, c.size, c.over, c.checkout, c.manager, costs, lab.UpstreamPlaceholder, c.request)
}

func (c gridCase) recipe() string {
	return fmt.Sprintf(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": %q}]}`, c.latency)
}

// accuracy runs the grid: per case and rate, the model's prediction and a
// real run, side by side.
func accuracy(d time.Duration, only string) error {
	cases := []gridCase{
		// Capacity W/L = 40/s: the knee of a fixed pool.
		{name: "fixed 8, 200ms", size: 8, checkout: 300 * time.Millisecond, request: 2 * time.Second, manager: "serial", latency: "200ms", rates: []float64{20, 32, 40, 48, 60, 80}},
		// Capacity 20/s with a 1 s checkout timeout: a deeper staircase.
		{name: "fixed 10, 500ms, checkout 1s", size: 10, checkout: time.Second, request: 2 * time.Second, manager: "concurrent", latency: "500ms", rates: []float64{10, 16, 20, 24, 30, 40}},
		// Request timeout shorter than some origin latencies: 504s.
		{name: "fixed 16, 50..250ms, timeout 200ms", size: 16, checkout: 200 * time.Millisecond, request: 200 * time.Millisecond, manager: "serial", latency: "50ms..250ms", rates: []float64{40, 64, 100, 128, 160}},
		// The serial manager's churn: 1/(20 ms + 5 ms) = 40 starts/s.
		{name: "overflow 2+64, costs 20ms/5ms", size: 2, over: 64, checkout: 200 * time.Millisecond, request: 2 * time.Second, manager: "serial", start: 20 * time.Millisecond, stop: 5 * time.Millisecond, latency: "100ms", rates: []float64{20, 32, 40, 48, 60, 80}},
		// Overflow with free workers (concurrent manager): capacity (4+28)/0.2 = 160/s.
		{name: "overflow 4+28, concurrent, 200ms", size: 4, over: 28, checkout: 300 * time.Millisecond, request: 2 * time.Second, manager: "concurrent", latency: "200ms", rates: []float64{80, 128, 160, 192, 240}},
	}
	fmt.Printf("Model accuracy, real runs of %s each (origin, proxy and generator in one process on loopback), %s\n\n", d, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Println("| case | rate/s | success model │ real | p50 model │ real | p99 model │ real | within 3 pts / 10% |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | :---: |")
	var total, ok int
	for _, c := range cases {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		cfg, err := config.Parse([]byte(c.yaml()), c.name)
		if err != nil {
			return err
		}
		rs, err := recipe.Parse([]byte(c.recipe()))
		if err != nil {
			return err
		}
		for _, rate := range c.rates {
			sp, err := schedule.ParseSpec(strconv.FormatFloat(rate, 'f', -1, 64) + "/s")
			if err != nil {
				return err
			}
			sch, err := schedule.New(sp, d)
			if err != nil {
				return err
			}
			ts, err := targets.ReadAll(strings.NewReader("GET http://proxy.model.invalid/x"), targets.Options{})
			if err != nil {
				return err
			}
			in := model.Input{Proxy: cfg, Origin: rs, Seed: 1, Scenarios: []model.Scenario{{Name: "s", Schedule: sch, Targets: ts, ToProxy: []bool{true}, Timeout: 10 * time.Second}}}
			pred, err := model.Predict(in)
			if err != nil {
				return err
			}
			m, err := lab.Run(c.yaml(), c.recipe(), sch, 10*time.Second, "/x")
			if err != nil {
				return err
			}
			p := pred.Scenarios[0]
			good := math.Abs(p.Success-m.Success) <= 0.03 && agree(p.Latencies.P50, m.P50) && agree(p.Latencies.P99, m.P99)
			total++
			mark := "no"
			if good {
				ok++
				mark = "yes"
			}
			fmt.Printf("| %s | %.0f | %.2f%% │ %.2f%% | %s │ %s | %s │ %s | %s |\n", c.name, rate, 100*p.Success, 100*m.Success,
				ms(p.Latencies.P50), ms(m.P50), ms(p.Latencies.P99), ms(m.P99), mark)
		}
	}
	fmt.Printf("\n%d of %d grid points within 3 points of success and 10%% (or 10 ms) of p50 and p99\n", ok, total)
	return nil
}

func agree(pred, got time.Duration) bool {
	return (got - pred).Abs() <= max(pred/10, 10*time.Millisecond)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
