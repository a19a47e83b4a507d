package writeup

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/slug"
)

// chartFile is a chart and where its SVG is written (relative path).
type chartFile struct {
	Title string
	File  string
	Chart plot.Chart
}

// stepAxis is the time axis shared by all of a step's charts: from the
// first request or sample to the last.
func stepAxis(st *summary.StepResult, d *stepData) plot.TimeAxis {
	ax := d.coll.Axis()
	if ax.Origin.IsZero() {
		ax = plot.TimeAxis{Origin: st.Started, Span: st.Ended.Sub(st.Started).Seconds()}
	}
	origin, end := ax.Origin, ax.Origin.Add(time.Duration(ax.Span*float64(time.Second)))
	if len(d.samples) > 0 {
		if t := d.samples[0].Time; t.Before(origin) || origin.IsZero() {
			origin = t
		}
		if t := d.samples[len(d.samples)-1].Time; t.After(end) {
			end = t
		}
	}
	return plot.TimeAxis{Origin: origin, Span: end.Sub(origin).Seconds()}
}

// stepCharts builds a step's charts: latency scatter, throughput, status
// codes, then every sampled metric, all on one time axis.
func stepCharts(st *summary.StepResult, d *stepData) []chartFile {
	ax := stepAxis(st, d)
	prefix := fmt.Sprintf("charts/step%02d-", st.Index+1)
	var out []chartFile
	if d.coll.Latency.Count() > 0 {
		out = append(out,
			chartFile{"Latency over time", prefix + "latency.svg", plot.LatencyChart("Latency over time: "+st.Name, ax, d.coll.Latency)},
			chartFile{"Throughput", prefix + "throughput.svg", plot.ThroughputChart("Requests and successful responses per second: "+st.Name, ax, d.coll.Timeline)},
			chartFile{"Status codes", prefix + "status.svg", plot.StatusChart("Status codes per second: "+st.Name, ax, d.coll.Timeline)},
		)
	}
	for _, g := range groupSamples(d.samples) {
		out = append(out, chartFile{g.title, prefix + slug.Make(g.title, "") + ".svg", plot.MetricChart(g.title+": "+st.Name, ax, g.metrics...)})
	}
	return out
}

type metricGroup struct {
	title   string
	metrics []plot.Metric
}

// groupSamples puts every CPU series on one chart, every RSS series on
// another, and each Prometheus metric (all its label sets) on its own.
func groupSamples(ss []sampler.Sample) []metricGroup {
	bySeries := map[string]*plot.Metric{}
	var order []string
	for _, s := range ss {
		m := bySeries[s.Series]
		if m == nil {
			m = &plot.Metric{Name: s.Series, Unit: s.Unit}
			bySeries[s.Series] = m
			order = append(order, s.Series)
		}
		m.Samples = append(m.Samples, plot.Sample{Time: s.Time, Value: s.Value})
	}
	groups := map[string]*metricGroup{}
	var titles []string
	for _, name := range order {
		m := bySeries[name]
		var title string
		switch {
		case strings.HasSuffix(name, sampler.SeriesCPU) || name == sampler.SeriesHost:
			title = "CPU usage"
			m.Unit = "CPU % (100 = one core)"
			m.Name = strings.TrimSuffix(name, " "+sampler.SeriesCPU)
		case strings.HasSuffix(name, sampler.SeriesRSS):
			title = "Memory (RSS)"
			m.Unit = "MiB"
			m.Name = strings.TrimSuffix(name, " "+sampler.SeriesRSS)
		default:
			comp, metric, _ := strings.Cut(name, " ")
			suffix := ""
			if i := strings.LastIndex(metric, " "); i >= 0 {
				metric, suffix = metric[:i], metric[i:]
			}
			base, labels, _ := strings.Cut(metric, "{")
			title = comp + " " + strings.TrimSpace(base+suffix)
			if labels != "" {
				l, _, _ := strings.Cut(labels, "}")
				m.Name = l
			} else {
				m.Name = base
			}
			m.Unit = unitOf(base, suffix, m.Unit)
		}
		g := groups[title]
		if g == nil {
			g = &metricGroup{title: title}
			groups[title] = g
			titles = append(titles, title)
		}
		g.metrics = append(g.metrics, *m)
	}
	sort.SliceStable(titles, func(i, j int) bool { return rank(titles[i]) < rank(titles[j]) })
	out := make([]metricGroup, len(titles))
	for i, t := range titles {
		out[i] = *groups[t]
	}
	return out
}

// unitOf labels a Prometheus series' y axis from its name.
func unitOf(name, suffix, unit string) string {
	switch {
	case strings.TrimSpace(suffix) == "/s":
		return "per second"
	case strings.TrimSpace(suffix) == "mean" || strings.HasSuffix(name, "_seconds"):
		return "seconds"
	case strings.Contains(name, "workers"):
		return "workers"
	case strings.Contains(name, "waiting") || strings.Contains(name, "in_flight"):
		return "requests"
	case strings.Contains(name, "percent"):
		return "%"
	case strings.HasSuffix(name, "_bytes"):
		return "bytes"
	case unit != "":
		return unit
	}
	return "value"
}

// rank orders charts by what explains a pool's behaviour: pool workers, waiting,
// other pool series, breaker, the rest, then CPU and memory.
func rank(title string) int {
	switch {
	case strings.Contains(title, "pool_workers_in_use"):
		return 0
	case strings.Contains(title, "overflow_workers"):
		return 1
	case strings.Contains(title, "pool_waiting"):
		return 2
	case strings.Contains(title, "pool"):
		return 3
	case strings.Contains(title, "breaker"):
		return 4
	case title == "CPU usage":
		return 8
	case title == "Memory (RSS)":
		return 9
	}
	return 5
}

// percentileCharts overlays, per scenario, the latency distributions of
// every step.
func percentileCharts(sum *summary.Summary, data []*stepData) []chartFile {
	var out []chartFile
	for _, name := range sum.ScenarioNames() {
		var dists []plot.Distribution
		for i, st := range sum.Steps {
			for j, sc := range st.Scenarios {
				if m := data[i].metrics[j]; sc.Name == name && m.Latencies.Count > 0 {
					dists = append(dists, plot.DistributionOf(st.Name, &m.Latencies))
				}
			}
		}
		if len(dists) == 0 {
			continue
		}
		out = append(out, chartFile{"Latency percentiles of " + name, "charts/percentiles-" + slug.Make(name, "") + ".svg",
			plot.PercentileChart("Latency by percentile, "+name+", every step", dists...)})
	}
	return out
}

// successOverlay is the success ratio per second of every step on one
// chart, against seconds since each step began: where the steps part.
func successOverlay(sum *summary.Summary, data []*stepData) []chartFile {
	var series []plot.Series
	for i, st := range sum.Steps {
		d := data[i]
		if d.coll.Timeline.Count() == 0 {
			continue
		}
		pts := d.coll.Timeline.SuccessRatio(stepAxis(st, d).Origin)
		if len(pts) == 0 {
			continue
		}
		series = append(series, plot.Series{Name: st.Name, Kind: plot.Line, Points: pts})
	}
	if len(series) < 2 {
		return nil
	}
	return []chartFile{{"Success over time, every step", "charts/success-over-time.svg", plot.Chart{
		Title: "Success ratio per second, every step (all scenarios)", X: plot.Axis{Label: "seconds since the step began"},
		Y: plot.Axis{Label: "success %", Min: 0, Max: 100}, Series: series}}}
}

// metricOverlays are the sampled server metrics of every step on one
// chart each, against seconds since each step began: a line per step.
// A series flat at zero in every step says nothing and is left out.
func metricOverlays(sum *summary.Summary, data []*stepData) []chartFile {
	type line struct {
		step string
		pts  []plot.Point
	}
	bySeries := map[string][]line{}
	units := map[string]string{}
	var order []string
	for i, st := range sum.Steps {
		d := data[i]
		if len(d.samples) == 0 {
			continue
		}
		origin := stepAxis(st, d).Origin
		per := map[string][]plot.Point{}
		var seen []string
		for _, x := range d.samples {
			if _, ok := per[x.Series]; !ok {
				seen = append(seen, x.Series)
			}
			per[x.Series] = append(per[x.Series], plot.Point{X: x.Time.Sub(origin).Seconds(), Y: x.Value})
			units[x.Series] = x.Unit
		}
		for _, name := range seen {
			if _, ok := bySeries[name]; !ok {
				order = append(order, name)
			}
			bySeries[name] = append(bySeries[name], line{st.Name, per[name]})
		}
	}
	var out []chartFile
	for _, name := range order {
		lines := bySeries[name]
		if len(lines) < 2 {
			continue
		}
		flat := true
		for _, l := range lines {
			for _, p := range l.pts {
				flat = flat && p.Y == 0
			}
		}
		if flat {
			continue
		}
		c := plot.Chart{Title: name + ", every step", X: plot.Axis{Label: "seconds since the step began"}, Y: plot.Axis{Label: units[name]}}
		for _, l := range lines {
			c.Series = append(c.Series, plot.Series{Name: l.step, Kind: plot.Line, Points: l.pts})
		}
		out = append(out, chartFile{name + ", every step", "charts/every-step-" + slug.Make(name, "") + ".svg", c})
	}
	return out
}

// writeSVGs renders charts into the output folder, making their folder
// where it is missing (a run folder copied without its charts is rewritten
// from its data alone).
func writeSVGs(dir string, cs []chartFile) error {
	for _, c := range cs {
		path := filepath.Join(dir, c.File)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		err = plot.WriteSVG(f, c.Chart)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.File, err)
		}
	}
	return nil
}
