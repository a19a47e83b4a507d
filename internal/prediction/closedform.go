package prediction

import "time"

// ClosedForm are the back-of-the-envelope figures of a pool in front of an
// origin with a fixed latency L, flooded at a constant rate R: where they
// hold, the simulation must agree with them.
type ClosedForm struct {
	Pool     string        `json:"pool"`
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
