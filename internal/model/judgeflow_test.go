package model

import (
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// A flow step's latency threshold bounds that step, not the scenario's
// predicted latency: Judge leaves it out (flows are not modelled), while
// the same bound on the scenario judges it.
func TestJudgeLeavesFlowThresholdsOut(t *testing.T) {
	p := newScenarioPrediction("shoppers")
	p.Requests, p.Success, p.Duration = 100, 1, time.Second
	for i := 0; i < 100; i++ {
		p.hist.RecordValue(int64(500 * time.Millisecond))
	}
	pred := &Prediction{Scenarios: []*ScenarioPrediction{p}}
	for src, want := range map[string]bool{"p99 < 300ms": false, "login: p99 < 300ms": true, "checks > 99%": true} {
		th, err := threshold.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if th.Scenario == "login" { // as the plan reads it: a flow step's name
			th.Scenario, th.Step = "", th.Scenario
		}
		if ok, why := Judge(pred, []threshold.Threshold{th}); ok != want {
			t.Errorf("%q: holds %v (%s), want %v", src, ok, why, want)
		}
		if got := latencyThreshold([]threshold.Threshold{th}, "shoppers"); (got != "") != (src == "p99 < 300ms") {
			t.Errorf("%q: latency threshold of the scenario %q", src, got)
		}
	}
}
