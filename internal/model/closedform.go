package model

import (
	"time"

	"github.com/loadlab/loadlab/internal/prediction"
	"github.com/loadlab/loadlab/internal/proxy/config"
)

// Closed computes the closed forms for a pool, a route's request timeout,
// an origin latency and a rate (where they hold, the simulation must agree
// with them: see the tests).
func Closed(pc *config.PoolConfig, requestTimeout, latency time.Duration, rate float64) prediction.ClosedForm {
	w := pc.Size + pc.Overflow
	c := prediction.ClosedForm{Workers: w, Latency: latency, Rate: rate}
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
// machine) decide whether its mailbox grows (bench/HISTORY.md, model).
const EdgeUtilization = 0.95
