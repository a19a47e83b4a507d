package recipe

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Empirical draws from a measured distribution: Quantiles are its values
// at evenly spaced probabilities from 0 to 1 (at least two, ascending),
// and a draw interpolates between the two around a uniform probability.
// It replays a latency distribution measured on a real system (the model
// of a black-box target uses it for the service time it calibrated).
type Empirical struct{ Quantiles []time.Duration }

// NewEmpirical makes an Empirical of n+1 quantiles (n >= 1) from samples.
func NewEmpirical(samples []time.Duration, n int) (Empirical, error) {
	if len(samples) == 0 || n < 1 {
		return Empirical{}, fmt.Errorf("an empirical distribution needs samples and at least 2 quantiles")
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	q := make([]time.Duration, n+1)
	for i := range q {
		q[i] = s[min(len(s)-1, i*(len(s)-1)/n)]
	}
	return Empirical{Quantiles: q}, nil
}

// Sample draws one value by inverse transform, linear between quantiles.
func (e Empirical) Sample(r *rand.Rand) time.Duration {
	q := e.Quantiles
	switch len(q) {
	case 0:
		return 0
	case 1:
		return q[0]
	}
	x := r.Float64() * float64(len(q)-1)
	i := int(x)
	if i >= len(q)-1 {
		return q[len(q)-1]
	}
	return q[i] + time.Duration((x-float64(i))*float64(q[i+1]-q[i]))
}

// Mean is the distribution's mean (trapezoids between quantiles).
func (e Empirical) Mean() time.Duration {
	q := e.Quantiles
	if len(q) < 2 {
		if len(q) == 1 {
			return q[0]
		}
		return 0
	}
	var sum float64
	for i := 0; i+1 < len(q); i++ {
		sum += float64(q[i]+q[i+1]) / 2
	}
	return time.Duration(sum / float64(len(q)-1))
}

// String describes the distribution by its median and 99th percentile.
func (e Empirical) String() string {
	if len(e.Quantiles) == 0 {
		return "empirical()"
	}
	at := func(p float64) time.Duration { return e.Quantiles[int(p*float64(len(e.Quantiles)-1))] }
	return fmt.Sprintf("empirical(p50=%v,p99=%v)", at(0.5), at(0.99))
}
