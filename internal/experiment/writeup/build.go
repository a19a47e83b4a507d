package writeup

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// charts are a run's charts, by where the report shows them.
type charts struct {
	perStep [][]chartFile // each step's time charts
	overall []chartFile   // knee, success over time, percentiles
	metrics []chartFile   // each sampled series of every step on one chart
}

// build makes the report's document from the run folder: the answer
// first, then one table, then what differs from the model, then the
// detail, collapsed.
func build(sum *summary.Summary, f *folder, cs charts) *document {
	d := &document{Title: sum.Name, Lead: lead(sum)}
	d.Sections = append(d.Sections, comparison(sum))
	if s, ok := flowSection(sum); ok {
		d.Sections = append(d.Sections, s)
	}
	if s, ok := modelSection(sum); ok {
		d.Sections = append(d.Sections, s)
	}
	if items := otherFindings(sum); len(items) > 0 {
		d.Sections = append(d.Sections, section{Title: "Findings", Blocks: []block{{Findings: items}}})
	}
	if len(cs.overall) > 0 {
		d.Sections = append(d.Sections, section{Title: "Charts", Blocks: []block{{Charts: cs.overall}}})
	}
	if s, ok := thresholdSection(sum); ok {
		d.Sections = append(d.Sections, s)
	}
	if s, ok := serverSection(sum, cs.metrics); ok {
		d.Sections = append(d.Sections, s)
	}
	if sum.Description != "" {
		d.Sections = append(d.Sections, section{Title: "Background", Blocks: []block{text(strings.TrimSpace(sum.Description))}})
	}
	d.Sections = append(d.Sections, method(sum), config(sum, f))
	d.Sections = append(d.Sections, steps(sum, f, cs.perStep)...)
	d.Sections = append(d.Sections, section{Title: "Files", Blocks: []block{{Items: []string{
		"`summary.json`: every figure above, for scripts",
		"`samples.csv`, `samples.json`: the sampled server metrics",
		"`steps/*/*.lll`: raw results (`loadlab report`, `loadlab plot`, `loadlab compare` read them)",
		"`report.html`: the same report with interactive charts, self-contained",
		"`loadlab compare " + orText(runFolder(sum), "<this folder>") + "` tells which differences between steps are real (bootstrap confidence intervals), " + compareHow(sum),
	}}}})
	return d
}

// runFolder is the -out folder the run was written to, as the command
// line gave it ("" when it did not).
func runFolder(sum *summary.Summary) string {
	for i, a := range sum.RunArgs {
		if (a == "-out" || a == "--out") && i+1 < len(sum.RunArgs) {
			return sum.RunArgs[i+1]
		}
		if v, ok := strings.CutPrefix(a, "-out="); ok {
			return v
		}
	}
	return ""
}

// compareHow says what loadlab compare compares in this run folder.
func compareHow(sum *summary.Summary) string {
	if sum.Compares() {
		return "comparing the configurations of each scenario at the same load"
	}
	return "comparing each scenario's steps with its first"
}

// comparison is the one table the answer stands on: a capacity search's
// runs, or the main scenario at every configuration and load; the other
// scenarios' tables collapsed below it.
func comparison(sum *summary.Summary) section {
	s := section{Title: "Comparison"}
	names := sum.ScenarioNames()
	var more []block
	if rows := searchRows(sum); len(rows) > 0 {
		s.Blocks = append(s.Blocks, heading("Capacity search"), tableOf(searchHeader, rows))
		return s
	}
	if len(names) == 0 {
		return s
	}
	s.Blocks = append(s.Blocks, heading(names[0]), comparisonTable(sum, names[0]))
	for _, name := range names[1:] {
		more = append(more, block{Minor: name}, comparisonTable(sum, name))
	}
	if len(more) > 0 {
		s.Blocks = append(s.Blocks, collapsed("The other scenarios: "+strings.Join(names[1:], ", "), more...))
	}
	return s
}

// otherFindings are the findings the lead and the model's section do not
// state.
func otherFindings(sum *summary.Summary) []string {
	var out []string
	for _, fd := range sum.Findings {
		switch fd.Kind {
		case summary.KindFailure, summary.KindComparison, summary.KindSweep, summary.KindLimit, summary.KindDisturbed,
			summary.KindSearch, summary.KindModel, summary.KindPrediction:
			continue
		}
		out = append(out, fd.String())
	}
	return out
}

// thresholdSection lists every threshold check, a row per step and a
// column per threshold, and how many failed; false when the plan has none.
func thresholdSection(sum *summary.Summary) (section, bool) {
	if len(sum.Thresholds) == 0 {
		return section{}, false
	}
	h, rows, failed := thresholdTable(sum)
	s := section{Title: "Thresholds", Blocks: []block{text(fmt.Sprintf("%d of %d checks failed.", failed, len(sum.Thresholds)))}}
	t := tableOf(h, rows)
	if len(rows) > 8 {
		t = collapsed(fmt.Sprintf("Every check (%d steps)", len(rows)), t)
	}
	s.Blocks = append(s.Blocks, t)
	return s, true
}

// serverSection is the CPU table and the sampled series of every step on
// one chart each; false when nothing was sampled.
func serverSection(sum *summary.Summary, over []chartFile) (section, bool) {
	s := section{Title: "Server metrics"}
	if h, rows := cpuRows(sum); len(h) > 1 {
		t := tableOf(h, rows)
		if len(rows) > 8 {
			t = collapsed("CPU use and the generator's schedule, every step", t)
		} else {
			s.Blocks = append(s.Blocks, heading("CPU usage"))
		}
		s.Blocks = append(s.Blocks, t)
	}
	if len(over) > 0 {
		s.Blocks = append(s.Blocks, collapsed("Each sampled series of every step on one chart, against seconds since the step began",
			block{Charts: over}))
	}
	return s, len(s.Blocks) > 0
}
