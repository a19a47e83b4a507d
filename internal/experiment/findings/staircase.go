package findings

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// staircases states the pool staircase for every step whose scenarios'
// latency climbed in plateaus: the step length and increment, step length
// × rate against the pool's workers, and the ceiling against checkout
// timeout + the time a request holds a worker. Where the figures and the
// pool's configuration disagree, it says so rather than forcing a match.
func staircases(sum *summary.Summary) []finding {
	var out []finding
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			if s := sc.Staircase; s != nil {
				out = append(out, heuristic(summary.KindStaircase, st, staircaseText(st, sc, s)))
			}
		}
	}
	return out
}

func staircaseText(st *summary.StepResult, sc *summary.ScenarioResult, s *summary.Staircase) string {
	rate := sc.RateActual
	b := &strings.Builder{}
	fmt.Fprintf(b, "In step %q, %s latency climbed in steps of ≈%s s every ≈%s s (%d steps from %s)",
		st.Name, sc.Name, approx(s.Increment), approx(s.StepLength), s.Steps, secs(s.Base))
	batch := s.StepLength * rate
	pool := ""
	if p := st.Pool; p != nil {
		pool = fmt.Sprintf(" (%d + %d overflow)", p.Size, p.Overflow)
		if p.Overflow == 0 {
			pool = fmt.Sprintf(" (%d, no overflow)", p.Size)
		}
	}
	if rate > 0 {
		fmt.Fprintf(b, "; %s s × %s req/s = %.0f", approx(s.StepLength), approx(rate), batch)
		inUse, ok := 0.0, false
		for k, v := range st.Peaks {
			if strings.Contains(k, "pool_workers_in_use") {
				inUse, ok = max(inUse, v), true
			}
		}
		switch {
		case ok && near(batch, inUse, 0.2):
			fmt.Fprintf(b, " ≈ the pool's %.0f workers in use at the peak%s: each step is one batch of requests taking the workers in turn", inUse, pool)
		case ok:
			fmt.Fprintf(b, " against the pool's %.0f workers in use at the peak%s: the pool is not the only queue", inUse, pool)
		case st.Pool != nil:
			fmt.Fprintf(b, " requests per step, against a pool of %d workers%s (no pool metrics were sampled)", st.Pool.Size+st.Pool.Overflow, pool)
		default:
			b.WriteString(" requests per step (no pool metrics were sampled to compare with)")
		}
	}
	fmt.Fprintf(b, ". It stopped at %s s", approx(s.MaxOK))
	if p := st.Pool; p != nil {
		// A request at the ceiling waited the whole checkout timeout, then
		// held its worker for the service time (the first plateau) or the
		// request timeout, whichever is shorter.
		held, what := s.Base, "origin"
		if p.RequestTimeout > 0 && p.RequestTimeout < held {
			held, what = p.RequestTimeout, "request timeout"
		}
		ceil := p.CheckoutTimeout + held
		if near(s.MaxOK, ceil, 0.1) {
			fmt.Fprintf(b, " = checkout timeout %s s + %s %s", approx(p.CheckoutTimeout), secs(held), what)
		} else {
			term := secs(held) + " " + what
			if what == "origin" {
				term = "the first plateau's " + secs(held) // the origin's time is not known to be that
			}
			fmt.Fprintf(b, ", which does not match checkout timeout %s s + %s (%s s)", approx(p.CheckoutTimeout), term, approx(ceil))
			if s.MaxOK > ceil {
				fmt.Fprintf(b, ": %s of it is time the pool's configuration does not account for", secs(s.MaxOK-ceil))
			} else {
				fmt.Fprintf(b, ": it stopped %s short of that", secs(ceil-s.MaxOK))
			}
		}
	}
	if s.Failures > 0 {
		fmt.Fprintf(b, "; %d later requests failed with %s after ≈%s", s.Failures, s.FailStatus, secs(s.FailAt))
		if p := st.Pool; p != nil {
			if near(s.FailAt, p.CheckoutTimeout, 0.1) {
				b.WriteString(" (the checkout timeout)")
			} else {
				fmt.Fprintf(b, ", not after the %s s checkout timeout: something other than the pool's queue failed them", approx(p.CheckoutTimeout))
			}
		}
	}
	return b.String() + "."
}

// near reports whether a is within frac of b.
func near(a, b, frac float64) bool { return b > 0 && math.Abs(a-b) <= frac*b }

// approx writes seconds (or a rate) for a sentence: two decimals below 10,
// none above, trailing zeros trimmed ("0.75 s" is "0.75", "2.20" is "2.2").
func approx(v float64) string {
	dec := 2
	if v >= 10 {
		dec = 0
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// secs writes a time for a sentence with its unit: as approx in seconds
// from 10 ms on ("1.2 s"), as a rounded duration below ("400µs"), so that
// a short time never reads as "0 s".
func secs(v float64) string {
	if v >= 0.01 {
		return approx(v) + " s"
	}
	return summary.FmtSeconds(v)
}
