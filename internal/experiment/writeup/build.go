package writeup

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// charts are a run's charts, by where the report shows them.
type charts struct {
	perStep [][]chartFile // each step's time charts
	overall []chartFile   // knee, success over time, percentiles
	metrics []chartFile   // each sampled series of every step on one chart
}

// manySteps is the number of steps above which a step's text reports are
// not repeated in the report (the step table and the linked files hold
// their figures): a capacity search or a matrix runs 12 to 20 steps.
const manySteps = 4

// build makes the report's document from the run folder: the answer
// first, then one table, then what differs from the model, then the
// detail, collapsed.
func build(sum *summary.Summary, f *folder, cs charts) *document {
	d := &document{Title: sum.Name, Lead: lead(sum)}
	d.Sections = append(d.Sections, comparison(sum))
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

// lead is the answer: the question the plan asked, the verdict and its
// numbers, and anything that makes the figures partial.
func lead(sum *summary.Summary) []block {
	var out []block
	if q := question(sum.Description); q != "" {
		out = append(out, text("*"+q+"*"))
	}
	if len(sum.Search) > 0 {
		out = append(out, text("**Capacity** (the highest rate that meets the thresholds): "+summary.SearchSentence(sum.Search)+"."))
	}
	var verdicts []string
	for _, fd := range sum.Findings {
		switch fd.Kind {
		case summary.KindFailure, summary.KindComparison, summary.KindSweep, summary.KindLimit:
			verdicts = append(verdicts, fd.String())
		}
	}
	if len(verdicts) > 0 {
		out = append(out, block{Findings: verdicts})
	}
	if n := len(sum.Thresholds); n > 0 {
		failed := 0
		for _, t := range sum.Thresholds {
			if !t.Pass {
				failed++
			}
		}
		s := fmt.Sprintf("Thresholds: all %d checks passed.", n)
		if failed > 0 {
			s = fmt.Sprintf("Thresholds: %d of %d checks failed (see Thresholds).", failed, n)
		}
		if len(sum.Search) > 0 && failed > 0 {
			s += " A capacity search fails its thresholds above the answer by design."
		}
		out = append(out, text(s))
	}
	if sum.Interrupted {
		out = append(out, note("**Interrupted**: the run was stopped (Ctrl-C); this report covers the steps that ran."))
	}
	if sum.Aborted != "" {
		out = append(out, note("**Stopped early**: "+sum.Aborted))
	}
	for _, w := range sum.Warnings {
		out = append(out, note("**Warning**: "+w))
	}
	return out
}

// question is what the plan asked: the first sentence of its
// description when it asks a question, else that sentence when short
// enough to lead with.
func question(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	end := strings.IndexAny(desc, "?")
	if end < 0 || strings.Contains(desc[:end], ". ") {
		end = strings.Index(desc+" ", ". ")
	}
	if end <= 0 || end > 240 {
		return ""
	}
	return desc[:end+1]
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
	s.Blocks = append(s.Blocks, heading(names[0]), tableOf(comparisonHeader, comparisonRows(sum, names[0])))
	for _, name := range names[1:] {
		more = append(more, block{Minor: name}, tableOf(comparisonHeader, comparisonRows(sum, name)))
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
		case summary.KindFailure, summary.KindComparison, summary.KindSweep, summary.KindLimit,
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

// method says how the run was made: when, with what, on what machine,
// which scenarios at which rates and the plan's shape.
func method(sum *summary.Summary) section {
	ds := sum.Design
	if ds == nil {
		ds = &summary.Design{}
	}
	how := fmt.Sprintf("loadlab %s (%s), plan `%s`", sum.Version, sum.Machine.Go, sum.Plan)
	if len(sum.RunArgs) > 0 {
		how = fmt.Sprintf("loadlab %s (%s), `loadlab run %s`", sum.Version, sum.Machine.Go, strings.Join(sum.RunArgs, " "))
	}
	s := section{Title: "Method", Blocks: []block{{Items: []string{
		sum.Started.UTC().Format("2 January 2006 15:04 UTC") + ", " + sum.Ended.Sub(sum.Started).Round(1e9).String(),
		how,
		fmt.Sprintf("Machine: %s, %d cores, %.1f GB, %s %s; generator and components share it", orText(sum.Machine.CPU, "unknown CPU"), sum.Machine.Cores, sum.Machine.MemoryGB, sum.Machine.OS, sum.Machine.Kernel),
		"Latencies are measured from when each request was due (no coordinated omission); HTTP/1.1 keep-alive unless a scenario says otherwise",
	}}}}
	if len(sum.Steps) > 0 {
		var items []string
		for _, sc := range ds.Scenarios {
			item := fmt.Sprintf("**%s**: %s at %s for %s", sc.Name, targetText(sum, sc), strings.Join(sc.Rates, ", "), sc.Duration)
			if len(sc.Headers) > 0 {
				item += fmt.Sprintf(", headers `%s`", strings.Join(sc.Headers, "`, `"))
			}
			items = append(items, item)
		}
		s.Blocks = append(s.Blocks, text("Every step runs these scenarios at the same time:"), block{Items: items})
	}
	shape := fmt.Sprintf("%d steps", ds.Steps)
	if len(ds.Axes) > 0 {
		var ax []string
		for _, a := range ds.Axes {
			ax = append(ax, a.Key+" ∈ {"+strings.Join(a.Values, ", ")+"}")
		}
		shape += ": the matrix " + strings.Join(ax, " × ")
	}
	if ds.Warmup != "" {
		shape += fmt.Sprintf("; each step starts with a %s warm-up whose results are not counted", ds.Warmup)
	}
	if ds.Cooldown != "" {
		shape += fmt.Sprintf("; %s of cool-down (still sampled) between steps", ds.Cooldown)
	}
	s.Blocks = append(s.Blocks, text(shape+"."))
	return s
}

// targetText is a scenario's target as the method states it: the plan's
// line when every step sends it, else the line with the varying part
// named and the values it took.
func targetText(sum *summary.Summary, sd summary.ScenarioDesign) string {
	if t := sum.TargetTemplate(sd.Name); t != "" {
		return t
	}
	return "`" + sd.Target + "`"
}

// config shows each component once: its command line per variant, its
// configuration file once, and the plan.
func config(sum *summary.Summary, f *folder) section {
	s := section{Title: "Config"}
	shownFile := map[string]bool{}
	shown := map[string]bool{}
	type shownText struct{ title, text string }
	firstFile := map[string]shownText{}
	for _, st := range sum.Steps {
		for _, c := range st.Components {
			key := c.Name + "/" + c.Variant
			if shown[key] {
				continue
			}
			shown[key] = true
			title := c.Name
			if c.Variant != "" {
				title += " (" + orText(c.Label, c.Variant) + ")"
			}
			bs := []block{code(c.CommandLine)}
			if c.File != "" && !shownFile[c.File] {
				shownFile[c.File] = true
				ex := fileExcerpt(c.File)
				kind := "Config"
				if c.Kind == "origin" {
					kind = "Origin simulator recipe"
				}
				if first, ok := firstFile[c.Name]; ok && ex != "" {
					if diff := linesNotIn(ex, first.text); diff != "" {
						bs = append(bs, text(kind+": as "+first.title+"'s but for these lines:"), code(diff))
					} else {
						bs = append(bs, text(kind+": as "+first.title+"'s."))
					}
				} else if ex != "" {
					firstFile[c.Name] = shownText{title, ex}
					bs = append(bs, text(kind+":"), code(ex))
				}
			}
			s.Blocks = append(s.Blocks, heading(title))
			s.Blocks = append(s.Blocks, bs...)
		}
	}
	if f.plan != "" {
		s.Blocks = append(s.Blocks, text("The plan, as it ran: ["+planFile(sum)+"]("+planFile(sum)+")."))
	}
	return s
}

// steps is each step's detail: with few steps, a collapsed section per
// step with its text reports and charts; with many, one table of every
// step's figures and one collapsed section of every step's charts.
func steps(sum *summary.Summary, f *folder, perStep [][]chartFile) []section {
	if len(sum.Steps) <= manySteps {
		var out []section
		for i, st := range sum.Steps {
			s := section{Title: st.Name, Collapsed: true, Blocks: stepNotes(st)}
			for j, sc := range st.Scenarios {
				s.Blocks = append(s.Blocks, block{Minor: "Loadlab hitting " + sc.Name})
				if sc.Target != "" {
					s.Blocks = append(s.Blocks, text(fmt.Sprintf("`%s` at %s", sc.Target, sc.Rate)))
				}
				s.Blocks = append(s.Blocks, code(f.steps[i].texts[j]), text(fmt.Sprintf("Raw results: [%s](%s)", sc.Results, sc.Results)))
			}
			if len(perStep[i]) > 0 {
				s.Blocks = append(s.Blocks, block{Charts: perStep[i]})
			}
			out = append(out, s)
		}
		return out
	}
	s := section{Title: "Steps", Blocks: []block{text("Every step's figures; its text report and raw results are the files named in the last column (`loadlab report` reads the raw results).")}}
	for _, st := range sum.Steps {
		s.Blocks = append(s.Blocks, stepNotes(st)...)
	}
	s.Blocks = append(s.Blocks, tableOf(stepHeader, stepRows(sum)))
	all := section{Title: "Charts of every step", Collapsed: true}
	for i, st := range sum.Steps {
		if len(perStep[i]) > 0 {
			all.Blocks = append(all.Blocks, block{Label: st.Name, Charts: perStep[i]})
		}
	}
	if len(all.Blocks) == 0 {
		return []section{s}
	}
	return []section{s, all}
}

// stepNotes says what went wrong in a step: stopped, re-run, a component
// died.
func stepNotes(st *summary.StepResult) []block {
	var out []block
	if st.Aborted != "" {
		out = append(out, note("**Step stopped** ("+st.Name+"): "+st.Aborted))
	}
	for _, why := range st.Reruns {
		out = append(out, note("**Re-run** ("+st.Name+"): an earlier attempt was discarded because the load generator could not keep its schedule ("+why+")."))
	}
	for _, d := range st.Deaths {
		out = append(out, text(fmt.Sprintf("Component **%s** failed in %s (%s). Its last output:", d.Name, st.Name, orText(d.Exit, d.StartError))), code(strings.Join(d.LastOutput, "\n")))
	}
	return out
}

func planFile(sum *summary.Summary) string {
	return "plan" + filepath.Ext(sum.Plan)
}

// linesNotIn is the lines of text that are not lines of base, in order.
func linesNotIn(text, base string) string {
	have := map[string]bool{}
	for _, l := range strings.Split(base, "\n") {
		have[l] = true
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !have[l] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// compareHow says what loadlab compare compares in this run folder.
func compareHow(sum *summary.Summary) string {
	if sum.Compares() {
		return "comparing the configurations of each scenario at the same load"
	}
	return "comparing each scenario's steps with its first"
}
