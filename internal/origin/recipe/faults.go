package recipe

import "math/rand/v2"

// Fault is a way of failing one request.
type Fault int

// The fault modes. None answers normally.
const (
	None     Fault = iota
	Reset          // reset the connection (TCP RST; stream reset on HTTP/2)
	Close          // close the connection without answering
	Hang           // never answer; hold the request until the client gives up
	SlowBody       // send the body at Faults.SlowRate bytes per second
	Truncate       // send only part of the body, then cut the connection
)

var faultNames = [...]string{"none", "reset", "close", "hang", "slow_body", "truncate"}

// String is the fault's name in recipes and metrics.
func (f Fault) String() string {
	if f < 0 || int(f) >= len(faultNames) {
		return "unknown"
	}
	return faultNames[f]
}

// ParseFault maps a name ("reset", "close", "hang", "slow_body" or "slow",
// "truncate", "none") to a Fault.
func ParseFault(s string) (Fault, bool) {
	if s == "slow" {
		return SlowBody, true
	}
	for i, n := range faultNames {
		if n == s {
			return Fault(i), true
		}
	}
	return None, false
}

// DefaultSlowRate is the slow_body rate when a recipe gives none: 10 kB/s.
const DefaultSlowRate = 10 << 10

// DefaultTruncateFraction is the part of the body sent by truncate.
const DefaultTruncateFraction = 0.5

// Faults gives each fault its probability per request (they sum to <= 1)
// and the parameters of slow_body and truncate.
type Faults struct {
	Prob             [len(faultNames)]float64 // indexed by Fault; None unused
	SlowRate         int64                    // bytes per second
	TruncateFraction float64                  // in [0, 1)
}

// Any reports whether some fault has a non-zero probability.
func (f *Faults) Any() bool {
	for _, p := range f.Prob[1:] {
		if p > 0 {
			return true
		}
	}
	return false
}

// Pick draws the fault of one request. It always consumes one random number.
func (f *Faults) Pick(r *rand.Rand) Fault {
	u := r.Float64()
	acc := 0.0
	for i := 1; i < len(f.Prob); i++ {
		acc += f.Prob[i]
		if u < acc {
			return Fault(i)
		}
	}
	return None
}
