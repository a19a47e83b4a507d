package recipe

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Contention is a stage's slowdown with concurrency, by the Universal
// Scalability Law: a request that starts its service when n requests of
// the route are in service (itself included) takes its drawn latency
// times 1 + Sigma·(n−1) + Kappa·n·(n−1). Sigma is the serialised share
// (a lock, one disk), Kappa the cost of keeping n workers coherent (cache
// lines, gossip). The zero value is no contention. The origin and the
// model apply it here, each counting its own requests in service.
type Contention struct {
	Sigma float64 `json:"sigma"`
	Kappa float64 `json:"kappa"`
}

// Any reports whether the service time grows with concurrency.
func (c Contention) Any() bool { return c.Sigma > 0 || c.Kappa > 0 }

// Factor is the slowdown with n requests in service: 1 for n <= 1.
func (c Contention) Factor(n int) float64 {
	if n <= 1 {
		return 1
	}
	f := float64(n)
	return 1 + c.Sigma*(f-1) + c.Kappa*f*(f-1)
}

// Scale is latency d of a request starting with n requests in service
// (itself included), capped at MaxDuration.
func (c Contention) Scale(d time.Duration, n int) time.Duration {
	if !c.Any() || n <= 1 {
		return d
	}
	return clamp(float64(d)*c.Factor(n), MaxDuration)
}

// String describes the contention as the fit and the docs print it.
func (c Contention) String() string {
	return fmt.Sprintf("σ=%.4g κ=%.4g", c.Sigma, c.Kappa)
}

// parseContention reads {"sigma": 0.05, "kappa": 0.001}: each from 0 to 1
// (σ = 1 is a fully serialised service; κ = 1 already halves the
// throughput of two workers).
func parseContention(v json.RawMessage, field string) (Contention, error) {
	var c Contention
	m, err := object(v, field, `want an object such as {"sigma": 0.05, "kappa": 0.001}`)
	if err != nil {
		return c, err
	}
	known := []string{"sigma", "kappa"}
	for k := range m {
		if !slices.Contains(known, k) {
			return c, bad(field+"."+k, m[k], "unknown field (known: %s)", strings.Join(known, ", "))
		}
	}
	for _, k := range known {
		raw, ok := present(m, k)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if kind(raw) != '0' || err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return c, bad(field+"."+k, raw, "want a number from 0 to 1")
		}
		if k == "sigma" {
			c.Sigma = f
		} else {
			c.Kappa = f
		}
	}
	return c, nil
}
