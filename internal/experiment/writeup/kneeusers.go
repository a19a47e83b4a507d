package writeup

import (
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/slug"
)

// usersSwept reports whether the scenario ran as a closed loop with at
// least two numbers of users.
func usersSwept(sum *summary.Summary, name string) bool {
	users := map[int]bool{}
	for _, st := range sum.Steps {
		if sc := st.Scenario(name); sc != nil && sc.Closed() {
			users[sc.Users] = true
		}
	}
	return len(users) >= 2
}

// usersKneeCharts are a closed loop's knee charts: its throughput
// (requests a second answered with success) and p99 against its users, a
// line per configuration through the measured steps and one of the
// model's predictions beside each. Throughput rises with the users up to
// the knee and stays flat past it, where only the response time grows.
func usersKneeCharts(sum *summary.Summary, name string) []chartFile {
	measured := map[string][]kneePoint{}
	predicted := map[string][]kneePoint{}
	var order []string
	for _, st := range sum.Steps {
		sc := st.Scenario(name)
		if sc == nil || !sc.Closed() || sc.Requests == 0 || st.Aborted != "" {
			continue
		}
		// The steps of one curve differ in their users only.
		conf := name
		if l := sum.GroupLabel(st); l != st.Configuration || sum.Compares() {
			conf = l
		}
		if _, ok := measured[conf]; !ok {
			order = append(order, conf)
		}
		measured[conf] = append(measured[conf], kneePoint{float64(sc.Users), sc.Throughput, 1000 * sc.Latency.P99.Seconds()})
		if p := st.Model.PredictedScenario(name); p != nil && p.Duration > 0 {
			x := p.Success * float64(p.Requests) / p.Duration.Seconds()
			predicted[conf] = append(predicted[conf], kneePoint{float64(sc.Users), x, 1000 * p.Latencies.P99.Seconds()})
		}
	}
	file := "charts/knee-" + slug.Make(name, "") + "-"
	return []chartFile{
		{"Knee: throughput against users", file + "throughput.svg", plot.Chart{Title: "Throughput of " + name + " against its users, per configuration",
			X: plot.Axis{Label: "users"}, Y: plot.Axis{Label: "requests/s answered", Min: 0}, Series: kneeSeries(order, measured, predicted, func(p kneePoint) float64 { return p.y })}},
		{"Knee: p99 against users", file + "p99.svg", plot.Chart{Title: "p99 latency of " + name + " against its users, per configuration",
			X: plot.Axis{Label: "users"}, Y: plot.Axis{Label: "p99 ms"}, Series: kneeSeries(order, measured, predicted, func(p kneePoint) float64 { return p.p99 })}},
	}
}
