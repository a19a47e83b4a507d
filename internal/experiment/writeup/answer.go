package writeup

import (
	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// The parts of report.html that need only summary.json and samples.json,
// for pages that show a run long after its folder is gone (the archive's
// results site draws them from the database).

// KneeCharts are report.html's knee charts of the run's main scenario:
// success ratio and p99 against rate per configuration (none when no
// configuration ran at two rates).
func KneeCharts(sum *summary.Summary) []plot.Chart {
	var out []plot.Chart
	for _, c := range kneeCharts(sum) {
		out = append(out, c.Chart)
	}
	return out
}

// AnswerSections are report.html's answer-first sections: the comparison
// of every configuration and rate (with charts, such as the knee charts and
// latency distributions, drawn under its tables) and the thresholds'
// verdicts when the plan has any.
func AnswerSections(sum *summary.Summary, charts []plot.Chart) []web.Section {
	var cf []chartFile
	for _, c := range charts {
		cf = append(cf, chartFile{Chart: c})
	}
	out := []web.Section{comparisonSection(sum, cf)}
	if th := thresholdSection(sum); th != nil {
		out = append(out, *th)
	}
	return out
}

// SampleCharts draws one step's sampled server metrics (rows of
// samples.json) on the time axis ax, grouped as report.html groups them:
// CPU on one chart, memory on another, each Prometheus metric on its own.
func SampleCharts(stepName string, ax plot.TimeAxis, rows []summary.Sample) []plot.Chart {
	ss := make([]sampler.Sample, len(rows))
	for i, r := range rows {
		ss[i] = sampler.Sample{Time: r.At(), Series: r.Series, Unit: r.Unit, Value: r.Value}
	}
	var out []plot.Chart
	for _, g := range groupSamples(ss) {
		out = append(out, plot.MetricChart(g.title+": "+stepName, ax, g.metrics...))
	}
	return out
}
