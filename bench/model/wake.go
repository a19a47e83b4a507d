package main

import (
	"context"
	"fmt"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
	"github.com/loadlab/loadlab/internal/model/machinecost"
)

// wakes measures the real serial manager's turnover, the figure the model's
// Costs.Dial, Costs.Close and Costs.Wake stand for (machinecost.Turnovers,
// the measurement `loadlab model` makes in short on each machine): a pool
// of one overflow worker whose start and stop costs are both s, checked
// out and in back to back. A start and a dismissal then take 2s plus the
// dial and the close as the manager makes them; the table gives that
// overhead (the mean over the turnovers), measured and as the model has
// it.
// The upstream dialled is a lean server on loopback (the lab's), with the
// proxy's dialer (no keep-alive probes).
func wakes() error {
	l, err := lab.Start("pools:\n  default: {size: 1}\nroutes:\n  - {name: all, path: /*, upstream: \""+lab.UpstreamPlaceholder+"\", pool: default}\n",
		`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "0s"}]}`)
	if err != nil {
		return err
	}
	defer l.Close()
	// The process serves an attack meanwhile, as the grid's lab does (a
	// process otherwise idle wakes slower still).
	sp, err := schedule.ParseSpec("40/s")
	if err != nil {
		return err
	}
	sch, err := schedule.New(sp, 12*time.Second)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	go func() {
		defer close(stop)
		_, _ = lab.Attack(l.URL+"/x", sch, 10*time.Second)
	}()
	defer func() { <-stop }()
	k := model.DefaultCosts
	fmt.Printf("The serial manager's dial and close after its sleep: one worker started and dismissed back to back through the real pool, %s, load average %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine.LoadAvg())
	fmt.Println("| start and stop cost (slept before each dial and close) | turnovers | measured: a turnover less both costs | model: dial + close |")
	fmt.Println("| ---: | ---: | ---: | ---: |")
	points, err := machinecost.Turnovers(context.Background(), l.URL,
		[]time.Duration{250 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond},
		1500*time.Millisecond) // about 1.5 s a row
	if err != nil {
		return err
	}
	for _, p := range points {
		dial, cl := k.Wake.After(p.Slept)
		fmt.Printf("| %v | %d | %.0f µs | %.0f µs |\n", p.Slept, p.Turnovers, float64(p.Overhead)/1e3, float64(k.Dial+dial+k.Close+cl)/1e3)
	}
	fmt.Println()
	return nil
}
