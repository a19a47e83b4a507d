package writeup

import (
	"html/template"
	"strings"

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

// AnswerSections are report.html's answer-first parts as sections of a
// page built elsewhere: the answer (the report's lead), the comparison of
// every configuration and rate (with charts, such as the knee charts and
// latency distributions, drawn under its tables), each flow scenario's
// sessions, steps and checks, and the thresholds' verdicts when the plan
// has any. They are rendered from the same
// document blocks as report.md and report.html.
func AnswerSections(sum *summary.Summary, charts []plot.Chart) []web.Section {
	var out []web.Section
	if l := lead(sum); len(l) > 0 {
		out = append(out, web.Section{Title: "Answer", HTML: blocksHTML(l)})
	}
	cmp := comparison(sum)
	out = append(out, web.Section{Title: cmp.Title, HTML: blocksHTML(cmp.Blocks), Charts: charts})
	if fl, ok := flowSection(sum); ok {
		out = append(out, web.Section{Title: fl.Title, HTML: blocksHTML(fl.Blocks)})
	}
	if th, ok := thresholdSection(sum); ok {
		out = append(out, web.Section{Title: th.Title, HTML: blocksHTML(th.Blocks)})
	}
	return out
}

// blocksHTML renders document blocks (without charts) as report.html
// renders them.
func blocksHTML(bs []block) template.HTML {
	var b strings.Builder
	t, err := htmlTemplate.Clone() // the report clones it per page: never execute the original
	if err != nil {
		return template.HTML(template.HTMLEscapeString(err.Error()))
	}
	for _, bl := range bs {
		if err := t.ExecuteTemplate(&b, "block", bl); err != nil {
			return template.HTML(template.HTMLEscapeString(err.Error()))
		}
	}
	return template.HTML(b.String()) // produced by html/template: escaped
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
