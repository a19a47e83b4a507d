package prediction

import (
	"fmt"
	"strings"
	"time"
)

// Breaker is a route's breaker state over the step. (A breaker read from
// a summary.json of version 1 has one point per state change and no
// throughput.)
type Breaker struct {
	Route string    `json:"route"`
	T     []float64 `json:"t"` // seconds since the step began
	State []string  `json:"state"`
	// Throughput is the percentage let through at each point.
	Throughput []int `json:"throughput_percent,omitempty"`
	// Rejected counts the requests the breaker turned away.
	Rejected uint64 `json:"rejected"`
}

// FirstOpen is when the breaker first opened, since the step began (0:
// it never did).
func (b Breaker) FirstOpen() time.Duration {
	for i, st := range b.State {
		if st == "open" {
			return seconds(b.T[i])
		}
	}
	return 0
}

// Story lists the breaker's state changes: "closed, open at 12s, ...".
func (b Breaker) Story() string {
	var parts []string
	last := ""
	for i, st := range b.State {
		if st != last {
			if last == "" {
				parts = append(parts, st)
			} else {
				parts = append(parts, fmt.Sprintf("%s at %s", st, seconds(b.T[i])))
			}
			last = st
		}
	}
	return strings.Join(parts, ", ")
}

func seconds(t float64) time.Duration { return time.Duration(t * float64(time.Second)) }
