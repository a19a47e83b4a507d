package model

import (
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// Input is one step to predict: the system under test and the scenarios
// attacking it at once.
type Input struct {
	// Proxy is the proxy's configuration; nil when the scenarios reach the
	// origin directly.
	Proxy *config.Config
	// Origin is the origin's recipes, as the origin serves them from the
	// moment the step starts.
	Origin []recipe.Recipe
	// Scenarios are the concurrent attacks.
	Scenarios []Scenario
	// Before are earlier steps' attacks on the same running components
	// (kept between steps): simulated first, in the same virtual time, so
	// that what they leave (cached copies, a breaker's state, the time
	// into the recipe's stages) is there when Scenarios start; their
	// results are not predicted. Scenarios' StartAfter count from Start.
	Before []Scenario
	// Start is when Scenarios begin, after Before.
	Start time.Duration
	// Costs are the serial manager's physical costs beyond the configured
	// worker_start_cost and worker_stop_cost.
	Costs Costs
	// Seed makes the arrival jitter and the targets' templates
	// repeatable, and the origin's draws when OriginSeed is 0.
	Seed uint64
	// OriginSeed is the origin's -seed: with the same seed, the n-th
	// request of a route's stage draws the same status, latency and fault
	// in the model as in the origin.
	OriginSeed uint64
	// Jitter spreads each request's arrival uniformly over [due, due +
	// Jitter), as a real generator and network do (default 1 ms; negative:
	// none). Without it, scenarios whose rates share a period lock in
	// phase: a 1/s scenario beside a 1,100/s one would always arrive in
	// the same slot of the pool's cycle, and always succeed or always fail.
	Jitter time.Duration
	// Interval is how often the pool and breaker series are sampled
	// (default 1 s).
	Interval time.Duration
	// Race decides answers that come about when the request timeout
	// fires (default DefaultRace, measured on loopback).
	Race *Race

	// observe, when set (tests), sees every answer the clients get.
	observe func(sc string, seq uint64, due, latency time.Duration, code int)
}

// Scenario is one attack.
type Scenario struct {
	Name     string
	Schedule *schedule.Schedule
	Targets  []*targets.Target
	// ToProxy says, per target, whether it goes to the proxy (true) or
	// straight to the origin.
	ToProxy []bool
	// Timeout is the client's timeout per request (the attack's -timeout).
	Timeout time.Duration
	// StartAfter delays the scenario's start within the step.
	StartAfter time.Duration
	// Workers, with an unpaced schedule (-rate=0), closes the loop: that
	// many users, each sending its next request the moment the previous
	// one is answered (or given up), for the schedule's duration — the
	// attack's -rate=0 -max-workers N.
	Workers int
}

// closed reports whether the scenario is a closed loop of Workers users.
func (sc *Scenario) closed() bool {
	return sc.Schedule != nil && sc.Schedule.Unpaced() && sc.Workers > 0
}

// Costs are what the serial manager spends per worker and message beyond
// the configured costs. The defaults are figures measured on a 2-core VM
// (see bench/HISTORY.md, "model"): a loopback dial and close made back to
// back, how much longer they take in the manager, which makes each after
// sleeping its previous cost (Wake), and the manager goroutine's own work
// per message under load (mailbox, handover to the waiting caller, its
// wake-up). Like the proxy, the model owes the configured costs back to
// back: while the manager is busy starting and dismissing workers, its
// work per message is made up by the next cost and does not slow it.
type Costs struct {
	Dial    time.Duration // dialling a new overflow worker's connection, back to back
	Close   time.Duration // closing a dismissed worker's connection, back to back
	Message time.Duration // the manager's own work per message
	// Exchange is how much longer than the origin's latency a worker is
	// held per request: writing the request, the loopback round trip,
	// reading the answer, checking the worker in. It matters at the
	// pool's capacity, where it decides whether a queue builds.
	Exchange time.Duration
	// Wake is how much longer a dial or close takes after the manager
	// slept (nil: no longer).
	Wake *Wake
}

// DefaultCosts are the loopback costs the model assumes unless told.
var DefaultCosts = Costs{Dial: 36 * time.Microsecond, Close: 7 * time.Microsecond, Message: 50 * time.Microsecond,
	Exchange: 450 * time.Microsecond, Wake: &DefaultWake}

// DefaultWake is measured inside the real serial manager's turn (its
// dial: the connect and the new worker's buffers; its close) in a proxy
// serving a constant-rate attack on loopback, on the shared 2-core VM
// (load average under 1), less Costs.Dial and Costs.Close: start and stop
// costs both of 250 µs, 1, 2, 5, 10 and 20 ms at about 85% of the
// manager's capacity, the full-scale incident's 680 µs / 170 µs at
// 1,000 req/s, and the accuracy grid's knee (start 20 ms, stop 5 ms,
// 40 req/s; six runs over an hour), the means of the runs. A dial after
// 5 ms of sleep took 160–240 µs, after 20 ms 225 µs, after 1 ms 105 µs; a
// close 17 µs after 250 µs, 40–84 µs after 20 ms (bench/HISTORY.md, "The
// grid's knee").
var DefaultWake = Wake{Points: []WakePoint{
	{250 * time.Microsecond, 88 * time.Microsecond, 10 * time.Microsecond},
	{1 * time.Millisecond, 69 * time.Microsecond, 15 * time.Microsecond},
	{2 * time.Millisecond, 74 * time.Microsecond, 17 * time.Microsecond},
	{5 * time.Millisecond, 161 * time.Microsecond, 27 * time.Microsecond},
	{10 * time.Millisecond, 143 * time.Microsecond, 41 * time.Microsecond},
	{20 * time.Millisecond, 189 * time.Microsecond, 49 * time.Microsecond},
}}

// originSeed is the seed of the origin's draws.
func (in *Input) originSeed() uint64 {
	if in.OriginSeed != 0 {
		return in.OriginSeed
	}
	return in.Seed
}
