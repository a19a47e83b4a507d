package model

import (
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Prediction is what the model expects one step to measure.
type Prediction struct {
	Scenarios []*ScenarioPrediction `json:"scenarios"`
	Pools     []PoolSeries          `json:"pools,omitempty"`
	Breakers  []BreakerSeries       `json:"breakers,omitempty"`
	// Unsupported names what the model could not represent; the
	// prediction covers the rest.
	Unsupported []string `json:"unsupported,omitempty"`
	// Elapsed is how long the simulation took (wall clock).
	Elapsed time.Duration `json:"-"`
}

// ScenarioPrediction is one scenario's predicted figures. The JSON names
// are stable (scripts read them): success is a ratio, latencies are in
// nanoseconds under vegeta's report keys.
type ScenarioPrediction struct {
	Scenario    string            `json:"scenario"`
	Requests    uint64            `json:"requests"`
	Success     float64           `json:"success"`
	StatusCodes map[string]uint64 `json:"status_codes"`
	// Answered says who produced the responses: upstream, pool_timeout,
	// upstream_error, breaker, fallback, cache, no_route, or client_timeout
	// for requests the client gave up on.
	Answered  map[string]uint64 `json:"answered_by"`
	Latencies Latencies         `json:"latencies"`
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

	hist            *hdrhistogram.Histogram
	total, min, max time.Duration
}

// Latencies are percentiles in nanoseconds, keyed as vegeta's report.
type Latencies struct {
	Mean time.Duration `json:"mean"`
	P50  time.Duration `json:"50th"`
	P90  time.Duration `json:"90th"`
	P95  time.Duration `json:"95th"`
	P99  time.Duration `json:"99th"`
	Max  time.Duration `json:"max"`
}

// PoolSeries is a pool's gauges over the step, one point per interval.
type PoolSeries struct {
	Pool          string    `json:"pool"`
	Manager       string    `json:"manager"`
	Size          int       `json:"size"`
	Overflow      int       `json:"overflow"`
	T             []float64 `json:"t"` // seconds since the step began
	InUse         []int     `json:"workers_in_use"`
	OverflowInUse []int     `json:"overflow_in_use"`
	Waiting       []int     `json:"waiting"`
	Mailbox       []int     `json:"mailbox"`
	Checkouts     uint64    `json:"checkouts"`
	Timeouts      uint64    `json:"checkout_timeouts"`
	Opened        uint64    `json:"overflow_opened"`
	Dismissed     uint64    `json:"overflow_dismissed"`
	MailboxPeak   int       `json:"mailbox_peak"`
	// FirstTimeout is when the first checkout timed out (0: none did).
	FirstTimeout time.Duration `json:"first_timeout"`
	// StartCost and StopCost are the serial manager's per-worker costs,
	// dial and close included.
	StartCost time.Duration `json:"start_cost"`
	StopCost  time.Duration `json:"stop_cost"`
	// CheckoutTimeout is the pool's checkout timeout.
	CheckoutTimeout time.Duration `json:"checkout_timeout"`
	// ManagerUtilization is the share of the step the serial manager was
	// busy: near 1, its mailbox holds or grows on costs too small for the
	// model to see, and the prediction is fragile.
	ManagerUtilization float64 `json:"manager_utilization"`
}

// BreakerSeries is a route's breaker state over the step.
type BreakerSeries struct {
	Route string    `json:"route"`
	T     []float64 `json:"t"`
	State []string  `json:"state"`
	// Throughput is the percentage let through at each point.
	Throughput []int `json:"throughput_percent"`
	// Rejected counts the requests the breaker turned away.
	Rejected uint64 `json:"rejected"`
}

func newScenarioPrediction(name string) *ScenarioPrediction {
	return &ScenarioPrediction{Scenario: name, StatusCodes: map[string]uint64{}, Answered: map[string]uint64{},
		hist: metrics.NewHistogram()}
}

// record counts one response the client saw (code 0: the client gave up
// or the connection failed).
func (p *ScenarioPrediction) record(code int, by string, latency time.Duration) {
	p.Requests++
	p.StatusCodes[strconv.Itoa(code)]++
	p.Answered[by]++
	if code >= 200 && code < 400 {
		p.Success++
	}
	metrics.RecordLatency(p.hist, latency)
	p.total += latency
	p.max = max(p.max, latency)
	if p.Requests == 1 || latency < p.min {
		p.min = latency
	}
}

// finish turns counts into ratios and percentiles.
func (p *ScenarioPrediction) finish() {
	if p.Requests == 0 {
		return
	}
	p.Success /= float64(p.Requests)
	h := p.hist
	// The histogram's buckets round up; no percentile is above the exact
	// maximum.
	q := func(pct float64) time.Duration { return min(time.Duration(h.ValueAtQuantile(pct)), p.max) }
	p.Latencies = Latencies{Mean: p.total / time.Duration(p.Requests), P50: q(50), P90: q(90), P95: q(95), P99: q(99), Max: p.max}
}

// Scenario returns the named scenario's prediction, or nil.
func (p *Prediction) Scenario(name string) *ScenarioPrediction {
	for _, s := range p.Scenarios {
		if s.Scenario == name {
			return s
		}
	}
	return nil
}
