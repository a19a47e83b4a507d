package experiment

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// PoolLimits is what a step's proxy config says about the pool its first
// scenario's route draws from: the figures the staircase is checked against.
type PoolLimits struct {
	Pool            string  `json:"pool"`
	Size            int     `json:"size"`
	Overflow        int     `json:"overflow"`
	CheckoutTimeout float64 `json:"checkout_timeout_seconds"`
	RequestTimeout  float64 `json:"request_timeout_seconds"`
	TimeoutStatus   int     `json:"timeout_status"`
}

// poolLimits reads a rendered proxy config and returns the limits of the
// route that serves path (the first route when none matches), or nil.
func poolLimits(file, path string) *PoolLimits {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	cfg, err := config.Parse(data, file)
	if err != nil || len(cfg.Routes) == 0 {
		return nil
	}
	route := cfg.RouteFor(path)
	if route == nil {
		route = cfg.Routes[0]
	}
	name, pc := cfg.PoolFor(route)
	if pc == nil {
		return nil
	}
	return &PoolLimits{Pool: name, Size: pc.Size, Overflow: pc.Overflow, CheckoutTimeout: time.Duration(pc.CheckoutTimeout).Seconds(),
		RequestTimeout: time.Duration(route.RequestTimeout).Seconds(), TimeoutStatus: pc.TimeoutStatus}
}

// targetPath is the path of a target line such as "GET http://h:1/search?q".
func targetPath(target string) string {
	f := strings.Fields(target)
	if len(f) == 0 {
		return "/"
	}
	u := f[len(f)-1]
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = "/"
		}
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return u
}

// staircases states the pool staircase for every step whose scenarios'
// latency climbed in plateaus: the step length and increment, step length ×
// rate against the pool's workers, and the ceiling against checkout timeout
// + the time a request holds a worker.
func staircases(sum *Summary) []string {
	var out []string
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			if s := sc.Staircase; s != nil {
				out = append(out, staircaseText(st, sc, s))
			}
		}
	}
	return out
}

func staircaseText(st *StepResult, sc *ScenarioResult, s *Staircase) string {
	rate := sc.RateActual
	b := &strings.Builder{}
	fmt.Fprintf(b, "In step %q, %s latency climbed in steps of ≈%s s every ≈%s s (%d steps from %s s)",
		st.Name, sc.Name, approx(s.Increment), approx(s.StepLength), s.Steps, approx(s.Base))
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
		held, what := s.Base, "origin"
		if p.RequestTimeout > 0 && p.RequestTimeout < held {
			held, what = p.RequestTimeout, "request timeout"
		}
		ceil := p.CheckoutTimeout + held
		rel := "="
		if !near(s.MaxOK, ceil, 0.1) {
			rel = "against"
		}
		fmt.Fprintf(b, " %s checkout timeout %s s + %s s %s", rel, approx(p.CheckoutTimeout), approx(held), what)
		if rel == "against" {
			fmt.Fprintf(b, " = %s s", approx(ceil))
		}
	}
	if s.Failures > 0 {
		fmt.Fprintf(b, "; %d later requests failed with %s after ≈%s s", s.Failures, s.FailStatus, approx(s.FailAt))
		if p := st.Pool; p != nil && near(s.FailAt, p.CheckoutTimeout, 0.1) {
			b.WriteString(" (the checkout timeout)")
		}
	}
	return b.String() + "."
}

// near reports whether a is within frac of b.
func near(a, b, frac float64) bool { return b > 0 && abs(a-b) <= frac*b }

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
