package findings

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// poolWhy explains a difference with the sampled pool metrics, when the
// proxy's were sampled.
func poolWhy(best, worst *summary.StepResult, all []*summary.StepResult) string {
	pick := func(st *summary.StepResult, metric string) (float64, bool) {
		v, ok := 0.0, false
		for k, x := range st.Peaks {
			if strings.Contains(k, metric) && !strings.HasSuffix(k, "/s") {
				v, ok = max(v, x), true
			}
		}
		return v, ok
	}
	rate := func(st *summary.StepResult, metric string) (float64, bool) {
		v, ok := 0.0, false
		for k, x := range st.Means {
			if strings.Contains(k, metric) && strings.HasSuffix(k, "/s") {
				v, ok = v+x, true
			}
		}
		return v, ok
	}
	if why := managerWhy(best, worst, all, pick, rate); why != "" {
		return why
	}
	wUse, ok1 := pick(worst, "pool_workers_in_use")
	wWait, _ := pick(worst, "pool_waiting")
	wOver, _ := pick(worst, "pool_overflow_workers_in_use")
	bUse, ok2 := pick(best, "pool_workers_in_use")
	bWait, _ := pick(best, "pool_waiting")
	if !ok1 || !ok2 {
		return ""
	}
	s := fmt.Sprintf("Why: with %s the pool peaked at %.0f workers in use", worst.Configuration, wUse)
	if wOver > 0 {
		s += fmt.Sprintf(" (%.0f of them overflow workers, opened per request and closed after)", wOver)
	}
	s += fmt.Sprintf(" and %.0f requests queued for a worker", wWait)
	if to, ok := rate(worst, "checkout_timeouts_total"); ok && to > 0 {
		s += fmt.Sprintf(", %.1f checkout timeouts/s turning into errors", to)
	}
	s += fmt.Sprintf("; with %s it peaked at %.0f in use and %.0f queued.", best.Configuration, bUse, bWait)
	return s
}

// managerWhy explains a collapse by the proxy's serial pool manager (its
// mailbox length): one goroutine, as poolboy is one Erlang process,
// that starts and dismisses overflow workers itself. When the worst
// configuration's mailbox grew and the best's did not, it says how many
// workers the manager could start per second against the requests that
// arrived, how far the mailbox grew, and what that did to checkouts.
func managerWhy(best, worst *summary.StepResult, all []*summary.StepResult, pick, rate func(*summary.StepResult, string) (float64, bool)) string {
	wBox, ok := pick(worst, "pool_mailbox")
	if !ok || wBox < 10 {
		return ""
	}
	bBox, _ := pick(best, "pool_mailbox")
	if bBox*4 > wBox {
		return ""
	}
	starts, _ := rate(worst, "overflow_opened_total")
	offered := 0.0
	for _, sc := range worst.Scenarios {
		offered += sc.RateActual
	}
	s := fmt.Sprintf("Why: the pool manager is a single goroutine, as poolboy is a single Erlang process, and with %s it had to start an overflow worker (a new upstream connection) for almost every checkout and dismiss one at almost every checkin. "+
		"It could start only about %.0f workers/s while %.0f requests/s arrived, so its mailbox grew to %.0f messages and requests waited in it past the checkout timeout", worst.Configuration, starts, offered, wBox)
	if to, ok := rate(worst, "checkout_timeouts_total"); ok && to > 0 {
		s += fmt.Sprintf(" (%.0f checkout timeouts/s, each a 500)", to)
	}
	s += "."
	// The same configuration at a load it held: the manager kept up.
	for _, st := range all {
		sc := st.Scenario(scenarioName(worst))
		if st == worst || st.Configuration != worst.Configuration || sc == nil || sc.Requests == 0 || sc.Success < summary.Healthy {
			continue
		}
		if r, ok := rate(st, "overflow_opened_total"); ok && r > 0 {
			box, _ := pick(st, "pool_mailbox")
			in := 0.0
			for _, o := range st.Scenarios {
				in += o.RateActual
			}
			s += fmt.Sprintf(" At %.0f requests/s it had kept up (%.0f starts/s, mailbox peak %.0f).", in, r, box)
			break
		}
	}
	return s + fmt.Sprintf(" %s never starts or dismisses a worker, and its mailbox peaked at %.0f.", best.Configuration, bBox)
}

// scenarioName is a step's first scenario, the one the findings follow.
func scenarioName(st *summary.StepResult) string {
	if len(st.Scenarios) == 0 {
		return ""
	}
	return st.Scenarios[0].Name
}
