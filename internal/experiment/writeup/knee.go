package writeup

import (
	"sort"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/slug"
)

// kneeCharts are the knee charts of the main scenario (the searched one,
// or the first): success ratio and p99 against rate, a line per
// configuration through the measured steps, and a line of the model's
// predictions beside each; nil when no configuration ran at two rates.
// A closed loop run with several numbers of users has its own
// (usersKneeCharts).
func kneeCharts(sum *summary.Summary) []chartFile {
	name := ""
	if len(sum.Search) > 0 {
		name = sum.Search[0].Scenario
	} else if names := sum.ScenarioNames(); len(names) > 0 {
		name = names[0]
	}
	if usersSwept(sum, name) {
		return usersKneeCharts(sum, name)
	}
	measured := map[string][]kneePoint{}
	predicted := map[string][]kneePoint{}
	var order []string
	planned := map[string]bool{} // the scenario's rates as the plan gave them
	for _, st := range sum.Steps {
		sc := st.Scenario(name)
		if sc == nil || sc.Requests == 0 || st.Aborted != "" {
			continue
		}
		rate := sc.RateActual
		if rate <= 0 {
			continue
		}
		conf := st.Configuration
		if _, ok := measured[conf]; !ok {
			order = append(order, conf)
		}
		measured[conf] = append(measured[conf], kneePoint{rate, 100 * sc.Success, 1000 * sc.Latency.P99.Seconds()})
		planned[sc.Rate] = true
		if p := st.Model.PredictedScenario(name); p != nil {
			predicted[conf] = append(predicted[conf], kneePoint{rate, 100 * p.Success, 1000 * p.Latencies.P99.Seconds()})
		}
	}
	// Two rates are the plan's, not the measured ones: six builds run at
	// 100/s send 100.02/s and 100.12/s, and have no knee.
	if len(planned) < 2 {
		return nil
	}
	file := "charts/knee-" + slug.Make(name, "") + "-"
	return []chartFile{
		{"Knee: success against rate", file + "success.svg", plot.Chart{Title: "Success ratio of " + name + " against its rate, per configuration",
			X: plot.Axis{Label: "requests/s"}, Y: plot.Axis{Label: "success %", Min: 0, Max: 100}, Series: kneeSeries(order, measured, predicted, func(p kneePoint) float64 { return p.y })}},
		{"Knee: p99 against rate", file + "p99.svg", plot.Chart{Title: "p99 latency of " + name + " against its rate, per configuration",
			X: plot.Axis{Label: "requests/s"}, Y: plot.Axis{Label: "p99 ms"}, Series: kneeSeries(order, measured, predicted, func(p kneePoint) float64 { return p.p99 })}},
	}
}

// kneePoint is one step on a knee chart: its load (x: a rate, or a closed
// loop's users), the first chart's figure (y: success %, or throughput)
// and its p99 in milliseconds.
type kneePoint struct{ x, y, p99 float64 }

// kneeSeries draws a knee chart's lines: per configuration (in order), the
// measured steps and the model's predictions beside them, each sorted by
// load, with the figure y.
func kneeSeries(order []string, measured, predicted map[string][]kneePoint, y func(kneePoint) float64) []plot.Series {
	var out []plot.Series
	for _, conf := range order {
		for _, set := range []struct {
			label string
			pts   []kneePoint
		}{{conf + " (measured)", measured[conf]}, {conf + " (model)", predicted[conf]}} {
			if len(set.pts) == 0 {
				continue
			}
			pts := append([]kneePoint(nil), set.pts...)
			sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
			s := plot.Series{Name: set.label, Kind: plot.Line, Dots: true}
			for _, p := range pts {
				s.Points = append(s.Points, plot.Point{X: p.x, Y: y(p)})
			}
			out = append(out, s)
		}
	}
	return out
}
