package findings

import (
	"fmt"
	"math"
	"sort"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
)

// Below a closed loop's knee, throughput grows with the users (each more
// user is one more request in service); past it, the added users only
// wait in a queue. Between two numbers of users, throughput that followed
// less than half the rise in users (slowGain) went past the knee between
// them; throughput that rose by less than flatRise had stopped rising
// already.
const (
	slowGain = 0.5
	flatRise = 0.10
)

// usersSweep describes a sweep of a closed loop (a scenario of N users,
// each sending its next request when its answer came) that kept its
// success in every step: where its throughput stopped rising with the
// users, or that it kept rising. It speaks in users, not rates, and
// checks what it says by Little's law: users = throughput × (response
// time + think time), the think time being zero in loadlab's closed
// loops. ok is false when the main scenario is not a closed loop over at
// least two numbers of users.
func usersSweep(sum *summary.Summary, main string) (finding, bool) {
	type point struct {
		users int
		sc    *summary.ScenarioResult
	}
	var pts []point
	seen := map[int]bool{}
	for _, st := range sum.Steps {
		sc := st.Scenario(main)
		if sc == nil || !sc.Closed() || sc.Requests == 0 || st.Aborted != "" || seen[sc.Users] {
			continue
		}
		seen[sc.Users] = true
		pts = append(pts, point{sc.Users, sc})
	}
	if len(pts) < 2 {
		return finding{}, false
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].users < pts[j].users })
	little := func(p point) string {
		r := p.sc.Latency.Mean.Seconds()
		return fmt.Sprintf("%s ≈ %s req/s × %s = %.1f", load.Closed(p.users).String(), load.FmtRate(p.sc.Throughput), summary.FmtSeconds(r), p.sc.Throughput*r)
	}
	// The pair of numbers of users past which throughput was flat says
	// most; else the first pair between which it rose far less than the
	// users (the knee lies between them).
	at := -1
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if a.sc.Throughput <= 0 {
			continue
		}
		more := float64(b.users)/float64(a.users) - 1
		rise := b.sc.Throughput/a.sc.Throughput - 1
		if rise < flatRise {
			at = i
			break
		}
		if rise < slowGain*more && at < 0 {
			at = i
		}
	}
	if at > 0 {
		a, b := pts[at-1], pts[at]
		// The knee by Little's law: as many users as the peak throughput
		// keeps busy at the lightest load's response time (no queueing).
		peak := 0.0
		for _, p := range pts {
			peak = max(peak, p.sc.Throughput)
		}
		light := pts[0].sc.Latency.Mean.Seconds()
		var what string
		if b.sc.Throughput/a.sc.Throughput-1 < flatRise {
			what = fmt.Sprintf("%s's throughput stopped rising beyond %s (%s req/s): with %s it was %s req/s",
				main, load.Closed(a.users).String(), load.FmtRate(a.sc.Throughput), load.Closed(b.users).String(), load.FmtRate(b.sc.Throughput))
		} else {
			what = fmt.Sprintf("%s's throughput rose far less than its users between %s and %s (%.0f× the users, %s to %s req/s)",
				main, load.Closed(a.users).String(), load.Closed(b.users).String(), float64(b.users)/float64(a.users), load.FmtRate(a.sc.Throughput), load.FmtRate(b.sc.Throughput))
		}
		text := fmt.Sprintf("%s while its mean response time grew from %s to %s, so the added users mostly waited (Little's law: %s). "+
			"The knee lies at about %s: the peak throughput times the response time at the lightest load (%s req/s × %s).",
			what, summary.FmtSeconds(a.sc.Latency.Mean.Seconds()), summary.FmtSeconds(b.sc.Latency.Mean.Seconds()), little(b),
			load.Closed(int(math.Max(1, math.Round(peak*light)))).String(), load.FmtRate(peak), summary.FmtSeconds(light))
		return fact(summary.KindSweep, text), true
	}
	last := pts[len(pts)-1]
	return fact(summary.KindSweep, fmt.Sprintf("%s kept at least 99%% success and its throughput kept rising with the users, up to %s (%s req/s, p99 %s): the knee lies beyond the users tried (Little's law: %s).",
		main, load.Closed(last.users).String(), load.FmtRate(last.sc.Throughput), summary.FmtSeconds(last.sc.Latency.P99.Seconds()), little(last))), true
}

// usersFell is a closed loop's sweep where success fell below 99% in step
// bad, in users: the last number of users that held (lastGood, nil when
// none did), and what more users did to success, latency and throughput.
func usersFell(main string, lastGood, bad *summary.StepResult) finding {
	b := bad.Scenario(main)
	fell := fmt.Sprintf("with %s (step %q) success fell to %.2f%% and p99 rose to %s, at %s req/s answered: this is the knee.",
		load.Closed(b.Users).String(), bad.Name, 100*b.Success, summary.FmtSeconds(b.Latency.P99.Seconds()), load.FmtRate(b.Throughput))
	g := (*summary.ScenarioResult)(nil)
	if lastGood != nil {
		g = lastGood.Scenario(main)
	}
	if g == nil || !g.Closed() {
		return fact(summary.KindSweep, "From the first step, "+fell)
	}
	return fact(summary.KindSweep, fmt.Sprintf("%s held up to %s (%.2f%% success, p99 %s, %s req/s answered); %s",
		main, load.Closed(g.Users).String(), 100*g.Success, summary.FmtSeconds(g.Latency.P99.Seconds()), load.FmtRate(g.Throughput), fell))
}

// usersKnees is each configuration's knee in users, when configurations
// are compared over closed loops of several numbers of users: where each
// one's throughput stopped rising (usersSweep), for the configurations
// that kept their success at every number of users (limits names where
// the others fell).
func usersKnees(sum *summary.Summary, main string) []finding {
	var order []string
	steps := map[string][]*summary.StepResult{}
	for _, st := range sum.Steps {
		g := group(sum, st)
		if _, ok := steps[g]; !ok {
			order = append(order, g)
		}
		steps[g] = append(steps[g], st)
	}
	var out []finding
	for _, g := range order {
		held := true
		for _, st := range steps[g] {
			if sc := st.Scenario(main); sc != nil && sc.Requests > 0 && (sc.Success < summary.Healthy || st.Aborted != "") {
				held = false
			}
		}
		one := *sum
		one.Steps = steps[g]
		if f, ok := usersSweep(&one, main); ok && held {
			f.Text = "With " + g + ", " + f.Text
			out = append(out, f)
		}
	}
	return out
}
