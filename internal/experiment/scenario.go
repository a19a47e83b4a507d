package experiment

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/attackrun"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/flow"
	"github.com/loadlab/loadlab/internal/targets"
)

// targetText returns the scenario's targets with component addresses
// filled in.
func (r *runner) targetText(sc *plan.Scenario) (string, error) {
	if sc.Flow != "" {
		return "", nil // a flow's requests are in its file (scenarioAttack)
	}
	text := sc.Targets
	if sc.TargetsFile != "" {
		data, err := os.ReadFile(sc.TargetsFile)
		if err != nil {
			return "", err
		}
		text = string(data)
	}
	return plan.Expand(text, r.fleet.urls(), r.plan.Target)
}

// firstTarget is the first non-comment line of a target list, for display.
func firstTarget(text string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

// scenarioAttack is the attack of one scenario, lasting dur; it sends the
// targets in text.
func (r *runner) scenarioAttack(sc *plan.Scenario, text string, dur time.Duration) (attackrun.Attack, error) {
	hdr := http.Header{}
	for _, h := range sc.Headers {
		hdr.Add(h[0], h[1])
	}
	file := r.plan.File
	if sc.TargetsFile != "" {
		file = sc.TargetsFile
	}
	o := attack.DefaultOptions()
	o.Name = sc.Name
	o.Timeout = sc.Timeout
	o.KeepAlive = sc.KeepAlive
	o.HTTP2 = sc.HTTP2
	if sc.MaxWorkers > 0 {
		o.MaxWorkers = sc.MaxWorkers
	}
	var err error
	if o.Schedule, err = schedule.New(sc.Rate, dur); err != nil {
		return attackrun.Attack{}, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	if sc.Flow != "" {
		f, err := r.loadFlow(sc)
		if err != nil {
			return attackrun.Attack{}, err
		}
		return attackrun.Attack{Flow: f, Options: o, StartAfter: sc.StartAfter}, nil
	}
	return attackrun.Attack{Targets: strings.NewReader(text), TargetOptions: targets.Options{File: file, Dir: r.plan.Dir, Header: hdr},
		Options: o, StartAfter: sc.StartAfter, Duet: sc.Duet}, nil
}

// loadFlow loads the scenario's flow with the components' addresses filled
// in its URLs.
func (r *runner) loadFlow(sc *plan.Scenario) (*flow.Flow, error) {
	data, err := os.ReadFile(sc.Flow)
	if err != nil {
		return nil, err
	}
	text, err := plan.Expand(string(data), r.fleet.urls(), r.plan.Target)
	if err != nil {
		return nil, err
	}
	return flow.Parse(sc.Flow, []byte(text))
}
