package summary

import (
	"fmt"
	"time"

	"github.com/loadlab/loadlab/internal/load"
)

// Closed reports whether the scenario ran as a closed loop: Users users,
// each sending its next request when the previous one was answered
// (rate: 0 with workers: N), rather than at a paced rate.
func (sc *ScenarioResult) Closed() bool { return sc.Users > 0 }

// Load is what the scenario was asked for: its rate as the plan gave it
// ("40/s"), or a closed loop's users ("32 users").
func (sc *ScenarioResult) Load() load.Load { return load.Of(sc.Rate, sc.Users) }

// Achieved is the scenario's load with what it achieved, for a table
// cell: a paced scenario's rate as asked ("40/s"), a closed loop's users
// and the requests a second answered with success ("32 users, 155.4
// req/s"), which is what a closed loop's users produce.
func (sc *ScenarioResult) Achieved() string {
	if sc.Closed() {
		return fmt.Sprintf("%s, %s req/s", sc.Load(), load.FmtRate(sc.Throughput))
	}
	return sc.Rate
}

// Calibration is what one calibration of a black box (a scenario with
// calibrate: true, fitted once per configuration before its first step)
// cost: the requests it sent to the live target, up to which rate and for
// how long. summary.json keeps it so that a run's
// load on the target is told in full: the steps' requests and these.
type Calibration struct {
	Configuration string `json:"configuration"`
	Scenario      string `json:"scenario"`
	Target        string `json:"target"`
	// Before is the step it ran before ("" in a capacity search: before
	// the configuration's first probe).
	Before string `json:"before,omitempty"`
	// Requests are the requests it sent, HighestRate the highest rate it
	// tried, Took how long it lasted (nanoseconds).
	Requests    uint64        `json:"requests"`
	HighestRate float64       `json:"highest_rate"`
	Took        time.Duration `json:"took"`
}
