// Package prediction holds what the model (loadlab model) predicts for one
// step, as plain data in one unit and under one set of JSON keys: a
// scenario's figures, a pool's and a route breaker's series, a pool's
// closed forms. `loadlab model -type json` prints them and a run's
// summary.json keeps them (steps[].model); durations are nanoseconds
// (latencies under vegeta's report keys), a series' t is seconds since
// the step began. The model computes them; the analysis and the write-up
// read them.
package prediction

import (
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Scenario is one scenario's predicted figures. The JSON names are stable
// (scripts read them): success is a ratio, latencies are in nanoseconds
// under vegeta's report keys.
type Scenario struct {
	Name        string            `json:"scenario"`
	Requests    uint64            `json:"requests"`
	Success     float64           `json:"success"`
	StatusCodes map[string]uint64 `json:"status_codes"`
	// Answered says who produced the responses: upstream, pool_timeout,
	// upstream_error, breaker, fallback, cache, no_route, or client_timeout
	// for requests the client gave up on.
	Answered  map[string]uint64      `json:"answered_by"`
	Latencies metrics.LatencySummary `json:"latencies"`
	// MaxCheckoutWait is the longest a request waited for a worker.
	MaxCheckoutWait time.Duration `json:"max_checkout_wait"`

	// Duration is the scenario's schedule length, for its rate.
	Duration time.Duration `json:"duration"`

	// Ties are the configured bounds its requests met within a hair (an
	// origin latency at the request timeout...), and Fragile says, when
	// they are enough to move success beyond the tolerance, why the
	// prediction is fragile ("" when it is not).
	Ties    []Tie  `json:"ties,omitempty"`
	Fragile string `json:"fragile,omitempty"`
}

// Tie is a configured bound that a scenario's requests met within a hair:
// an origin latency at the request timeout, a worker coming free at the
// checkout timeout, an answer at the client's timeout.
type Tie struct {
	// Bound is the configured limit, in words ("request timeout 5s of
	// route search").
	Bound string `json:"bound"`
	// Against is what met it ("the origin's answers, latency 5s").
	Against string `json:"against"`
	// Requests were decided on the tie, Won of them on the good side.
	Requests uint64 `json:"requests"`
	Won      uint64 `json:"won"`
	// Modelled says the model draws each side as the real proxy's
	// measured race does (the request timeout); else it decides by event
	// order and only flags it.
	Modelled bool `json:"modelled"`
}
