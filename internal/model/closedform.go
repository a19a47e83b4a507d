package model

import (
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// ClosedForm are the back-of-the-envelope figures of a pool in front of an
// origin with a fixed latency L, flooded at a constant rate R: where they
// hold, the simulation must agree with them (see the tests).
type ClosedForm struct {
	Workers  int           `json:"workers"`  // W = size + overflow
	Latency  time.Duration `json:"latency"`  // L, the origin's fixed latency
	Rate     float64       `json:"rate"`     // R, requests per second
	Capacity float64       `json:"capacity"` // W / L requests per second
	// Step is how long one batch of W requests takes to arrive (W / R),
	// and Rise how much longer each batch waits than the one before
	// (L - W / R), once R exceeds the capacity.
	Step time.Duration `json:"step"`
	Rise time.Duration `json:"rise"`
	// Ceiling is where latency stops: the checkout timeout plus the
	// request time, min(L, request timeout).
	Ceiling time.Duration `json:"ceiling"`
}

// Overloaded reports whether the rate exceeds the pool's capacity.
func (c ClosedForm) Overloaded() bool { return c.Rate > c.Capacity }

// Closed computes the closed forms for a pool, a route's request timeout,
// an origin latency and a rate.
func Closed(pc *config.PoolConfig, requestTimeout, latency time.Duration, rate float64) ClosedForm {
	w := pc.Size + pc.Overflow
	c := ClosedForm{Workers: w, Latency: latency, Rate: rate}
	if latency > 0 {
		c.Capacity = float64(w) / latency.Seconds()
	}
	if rate > 0 {
		c.Step = time.Duration(float64(w) / rate * float64(time.Second))
		c.Rise = latency - c.Step
	}
	c.Ceiling = pc.CheckoutTimeout.D() + min(latency, requestTimeout)
	return c
}

// EdgeUtilization is the serial manager's busy share from which a
// prediction is at the edge of its capacity: there, costs below the
// model's resolution (the manager's own work per message on a loaded
// machine) decide whether its mailbox grows (bench/README.md, model).
const EdgeUtilization = 0.95
