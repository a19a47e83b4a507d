package recipe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Latency draws the simulated latency of one request.
type Latency interface {
	// Sample draws one latency, in [0, MaxDuration].
	Sample(r *rand.Rand) time.Duration
	// String describes the latency as routes_status prints it: integer
	// milliseconds ("100"), a range ("100..500") or a distribution.
	String() string
}

// Fixed is a constant latency.
type Fixed time.Duration

// Sample returns the constant.
func (f Fixed) Sample(*rand.Rand) time.Duration { return time.Duration(f) }

// String prints integer milliseconds.
func (f Fixed) String() string { return formatMillis(time.Duration(f)) }

// Uniform draws uniformly from [Min, Max].
type Uniform struct{ Min, Max time.Duration }

// Sample draws uniformly.
func (u Uniform) Sample(r *rand.Rand) time.Duration {
	if u.Max <= u.Min {
		return u.Min
	}
	return u.Min + time.Duration(r.Int64N(int64(u.Max-u.Min)+1))
}

// String prints "min..max" in milliseconds, as origin_simulator does.
func (u Uniform) String() string { return formatMillis(u.Min) + ".." + formatMillis(u.Max) }

// Normal draws from a normal distribution, clamped to [0, Max].
type Normal struct{ Mean, StdDev, Max time.Duration }

// Sample draws one value.
func (n Normal) Sample(r *rand.Rand) time.Duration {
	return clamp(float64(n.Mean)+r.NormFloat64()*float64(n.StdDev), n.Max)
}

// String describes the distribution.
func (n Normal) String() string {
	return fmt.Sprintf("normal(mean=%v,stddev=%v)", n.Mean, n.StdDev)
}

// z99 is the standard normal quantile at 0.99.
const z99 = 2.3263478740408408

// LogNormal is a log-normal distribution given its median and 99th
// percentile, clamped to Max.
type LogNormal struct{ P50, P99, Max time.Duration }

// Sample draws one value.
func (l LogNormal) Sample(r *rand.Rand) time.Duration {
	mu := math.Log(float64(l.P50))
	sigma := (math.Log(float64(l.P99)) - mu) / z99
	return clamp(math.Exp(mu+sigma*r.NormFloat64()), l.Max)
}

// String describes the distribution.
func (l LogNormal) String() string {
	return fmt.Sprintf("lognormal(p50=%v,p99=%v)", l.P50, l.P99)
}

// Pareto is a Pareto (type I) distribution with scale Min and shape Alpha,
// clamped to Max: heavy-tailed latencies.
type Pareto struct {
	Min   time.Duration
	Alpha float64
	Max   time.Duration
}

// Sample draws one value by inverse transform.
func (p Pareto) Sample(r *rand.Rand) time.Duration {
	u := 1 - r.Float64() // (0, 1]
	return clamp(float64(p.Min)/math.Pow(u, 1/p.Alpha), p.Max)
}

// String describes the distribution.
func (p Pareto) String() string {
	return fmt.Sprintf("pareto(min=%v,alpha=%g)", p.Min, p.Alpha)
}

func clamp(v float64, max time.Duration) time.Duration {
	if max <= 0 || max > MaxDuration {
		max = MaxDuration
	}
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > float64(max):
		return max
	}
	return time.Duration(v)
}
