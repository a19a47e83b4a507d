package writeup

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/plot/web"
)

func latencyCells(l summary.LatencySummary) string {
	return strings.Join([]string{summary.FmtSeconds(l.Mean), summary.FmtSeconds(l.P50), summary.FmtSeconds(l.P95), summary.FmtSeconds(l.P99), summary.FmtSeconds(l.Max)}, ", ")
}

// comparisonRows is the comparison table: Configuration | RPS |
// Latencies [mean, 50, 95, 99, max] | Success ratio, per scenario.
func comparisonRows(sum *summary.Summary, name string) [][]string {
	var rows [][]string
	for _, st := range sum.Steps {
		sc := st.Scenario(name)
		if sc == nil {
			continue
		}
		rate := sc.Rate
		if first := st.Scenarios[0]; first.Name != name {
			// A scenario beside the flood: its own rate says nothing of the
			// step, the flood's does.
			rate += " (" + first.Name + " " + first.Rate + ")"
		}
		row := []string{st.Configuration, rate, latencyCells(sc.Latency), fmt.Sprintf("%.2f%%", 100*sc.Success), strconv.FormatUint(sc.Requests, 10)}
		if st.Aborted != "" {
			row[3] += " (stopped)"
		}
		rows = append(rows, row)
	}
	return rows
}

// predictionRows is the predicted | measured table: per step and
// scenario, success, p50 and p99 as the model predicted them before the
// step ran and as measured, with the verdict.
func predictionRows(sum *summary.Summary, miss string) [][]string {
	var rows [][]string
	for _, c := range summary.Checks(sum) {
		verdict := "agrees"
		if !c.OK {
			var what []string
			if !c.Success {
				what = append(what, "success")
			}
			if !c.P50 {
				what = append(what, "p50")
			}
			if !c.P99 {
				what = append(what, "p99")
			}
			verdict = miss + " (" + strings.Join(what, ", ") + ")"
		}
		rows = append(rows, []string{c.Step, c.Scenario,
			fmt.Sprintf("%.2f%% \u2502 %.2f%%", 100*c.PSuccess, 100*c.MSuccess),
			summary.FmtSeconds(c.Predicted.P50) + " \u2502 " + summary.FmtSeconds(c.Measured.P50),
			summary.FmtSeconds(c.Predicted.P99) + " \u2502 " + summary.FmtSeconds(c.Measured.P99),
			verdict})
	}
	return rows
}

// searchRows lists a capacity search's runs in the order they ran.
func searchRows(sum *summary.Summary) [][]string {
	var rows [][]string
	for _, r := range sum.Search {
		for _, p := range r.Probes {
			verdict := "holds"
			if !p.Pass {
				verdict = "fails: " + p.Broken
			}
			if p.Confirmation {
				verdict += " (confirmation)"
			}
			rows = append(rows, []string{r.Configuration, summary.FmtRate(p.Rate), fmt.Sprintf("%.2f%%", 100*p.Success), summary.FmtSeconds(p.P99), verdict})
		}
	}
	return rows
}

var searchHeader = []string{"Configuration", "Rate (req/s)", "Success", "p99", "Verdict"}

var predictionHeader = []string{"Step", "Scenario", "Success predicted \u2502 measured", "p50 predicted \u2502 measured", "p99 predicted \u2502 measured", "Verdict"}

// predictionNote says what the table is and how close is close.
func predictionNote() string {
	return fmt.Sprintf("The model (loadlab model) simulated each step before it ran, with the same pool, breaker and cache code the proxy runs. "+
		"A prediction agrees when success is within %.0f points and p50 and p99 within %.0f%% (or %s).",
		summary.SuccessTolerance*100, summary.LatencyTolerance*100, summary.FmtSeconds(summary.LatencyFloor))
}

var comparisonHeader = []string{"Configuration", "RPS", "Latencies [mean, 50, 95, 99, max]", "Success ratio", "Requests"}

// cpuRows compares CPU use: peak and mean CPU per component, and whether
// the generator kept its schedule (the largest lag p99 and max of the
// step's scenarios).
func cpuRows(sum *summary.Summary) ([]string, [][]string) {
	comps := map[string]bool{}
	for _, st := range sum.Steps {
		for k := range st.Peaks {
			if strings.HasSuffix(k, " cpu %") {
				comps[strings.TrimSuffix(k, " cpu %")] = true
			}
		}
	}
	var names []string
	for c := range comps {
		names = append(names, c)
	}
	sort.Strings(names)
	header := []string{"Step"}
	for _, c := range names {
		header = append(header, c+" CPU% peak / mean")
	}
	header = append(header, "Schedule lag p99 / max")
	var rows [][]string
	for _, st := range sum.Steps {
		row := []string{st.Name}
		for _, c := range names {
			k := c + " cpu %"
			if _, ok := st.Peaks[k]; ok {
				row = append(row, fmt.Sprintf("%.0f%% / %.0f%%", st.Peaks[k], st.Means[k]))
			} else {
				row = append(row, "-")
			}
		}
		var p99, mx float64
		for _, sc := range st.Scenarios {
			p99, mx = max(p99, sc.LagP99), max(mx, sc.MaxLag)
		}
		row = append(row, summary.FmtSeconds(p99)+" / "+summary.FmtSeconds(mx))
		rows = append(rows, row)
	}
	return header, rows
}

func mdTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// fileExcerpt returns a file's text for the setup section, cut at 60 lines.
func fileExcerpt(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 60 {
		lines = append(lines[:60], fmt.Sprintf("... (%d more lines in %s)", len(lines)-60, path))
	}
	return strings.Join(lines, "\n")
}

func fence(b *strings.Builder, text string) {
	b.WriteString("```\n" + strings.TrimRight(text, "\n") + "\n```\n\n")
}

func markdown(sum *summary.Summary, f *folder, perStep [][]chartFile, pct, over []chartFile) string {
	var b strings.Builder
	ds := sum.Design
	if ds == nil {
		ds = &summary.Design{}
	}
	fmt.Fprintf(&b, "# %s\n", sum.Name)
	fmt.Fprintf(&b, "- %s, %s\n", sum.Started.UTC().Format("2 January 2006 15:04 UTC"), sum.Ended.Sub(sum.Started).Round(1e9))
	if len(sum.RunArgs) > 0 {
		fmt.Fprintf(&b, "- loadlab %s (%s), `loadlab run %s`\n", sum.Version, sum.Machine.Go, strings.Join(sum.RunArgs, " "))
	} else {
		fmt.Fprintf(&b, "- loadlab %s (%s), plan `%s`\n", sum.Version, sum.Machine.Go, sum.Plan)
	}
	fmt.Fprintf(&b, "- Machine: %s, %d cores, %.1f GB, %s %s; generator and components share it\n", orText(sum.Machine.CPU, "unknown CPU"), sum.Machine.Cores, sum.Machine.MemoryGB, sum.Machine.OS, sum.Machine.Kernel)
	fmt.Fprintf(&b, "- Latencies are measured from when each request was due (no coordinated omission); HTTP/1.1 keep-alive unless a scenario says otherwise\n\n")
	if len(sum.Search) > 0 {
		b.WriteString("**Capacity** (the highest rate that meets the thresholds): " + summary.SearchSentence(sum.Search) + ".\n\n")
	}
	if sum.Description != "" {
		b.WriteString("## Background\n" + strings.TrimSpace(sum.Description) + "\n\n")
	}
	if sum.Interrupted {
		b.WriteString("> **Interrupted**: the run was stopped (Ctrl-C); this report covers the steps that ran.\n\n")
	}
	if sum.Aborted != "" {
		b.WriteString("> **Stopped early**: " + sum.Aborted + "\n\n")
	}
	if len(sum.Findings) > 0 {
		b.WriteString("## Findings\n")
		for _, fd := range sum.Findings {
			b.WriteString("- " + fd.String() + "\n")
		}
		b.WriteString("\n")
	}
	for _, w := range sum.Warnings {
		b.WriteString("> **Warning**: " + w + "\n\n")
	}

	b.WriteString("## Method\n")
	if len(sum.Steps) > 0 {
		b.WriteString("Every step runs these scenarios at the same time:\n")
		for _, sc := range ds.Scenarios {
			fmt.Fprintf(&b, "- **%s**: `%s` at %s for %s", sc.Name, sc.Target, strings.Join(sc.Rates, ", "), sc.Duration)
			if len(sc.Headers) > 0 {
				fmt.Fprintf(&b, ", headers `%s`", strings.Join(sc.Headers, "`, `"))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\n%d steps", ds.Steps)
	if len(ds.Axes) > 0 {
		var ax []string
		for _, a := range ds.Axes {
			ax = append(ax, a.Key+" ∈ {"+strings.Join(a.Values, ", ")+"}")
		}
		b.WriteString(": the matrix " + strings.Join(ax, " × "))
	}
	if ds.Warmup != "" {
		fmt.Fprintf(&b, "; each step starts with a %s warm-up whose results are not counted", ds.Warmup)
	}
	if ds.Cooldown != "" {
		fmt.Fprintf(&b, "; %s of cool-down (still sampled) between steps", ds.Cooldown)
	}
	b.WriteString(".\n\n")

	b.WriteString("## Config\n")
	shown := map[string]bool{}
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
			fmt.Fprintf(&b, "### %s\n", title)
			fence(&b, c.CommandLine)
			if c.File != "" {
				if ex := fileExcerpt(c.File); ex != "" {
					kind := "Config"
					if c.Kind == "origin" {
						kind = "Origin simulator recipe"
					}
					fmt.Fprintf(&b, "%s:\n", kind)
					fence(&b, ex)
				}
			}
		}
	}
	b.WriteString("### Plan\n")
	fence(&b, f.plan)

	b.WriteString("## Tests\n")
	for i, st := range sum.Steps {
		fmt.Fprintf(&b, "### %s\n", st.Name)
		if st.Aborted != "" {
			b.WriteString("> **Step stopped**: " + st.Aborted + "\n\n")
		}
		for _, why := range st.Reruns {
			b.WriteString("> **Re-run**: an earlier attempt was discarded because the load generator could not keep its schedule (" + why + ").\n\n")
		}
		for _, d := range st.Deaths {
			fmt.Fprintf(&b, "Component **%s** failed (%s). Its last output:\n", d.Name, orText(d.Exit, d.StartError))
			fence(&b, strings.Join(d.LastOutput, "\n"))
		}
		for j, sc := range st.Scenarios {
			fmt.Fprintf(&b, "#### Loadlab hitting %s\n", sc.Name)
			if sc.Target != "" {
				fmt.Fprintf(&b, "`%s` at %s\n\n", sc.Target, sc.Rate)
			}
			fence(&b, f.steps[i].texts[j])
			fmt.Fprintf(&b, "Raw results: [%s](%s)\n\n", sc.Results, sc.Results)
		}
		if len(perStep[i]) > 0 {
			b.WriteString("see the interactive graphs [here](report.html)\n\n")
		}
		for _, c := range perStep[i] {
			fmt.Fprintf(&b, "#### %s\n![%s](%s)\n\n", c.Title, c.Title, c.File)
		}
	}

	b.WriteString("## Comparison\n")
	for _, name := range sum.ScenarioNames() {
		fmt.Fprintf(&b, "### %s\n", name)
		mdTable(&b, comparisonHeader, comparisonRows(sum, name))
	}
	if rows := searchRows(sum); len(rows) > 0 {
		b.WriteString("### Capacity search\n")
		mdTable(&b, searchHeader, rows)
	}
	if rows := predictionRows(sum, "**MISS**"); len(rows) > 0 {
		b.WriteString("### Predicted and measured\n" + predictionNote() + "\n\n")
		mdTable(&b, predictionHeader, rows)
	}
	if h, rows := cpuRows(sum); len(h) > 1 {
		b.WriteString("### CPU usage\n")
		mdTable(&b, h, rows)
	}
	for _, c := range pct {
		fmt.Fprintf(&b, "### %s\n![%s](%s)\n\n", c.Title, c.Title, c.File)
	}
	if len(over) > 0 {
		b.WriteString("### Server metrics, every step\nEach sampled series of every step on one chart, against seconds since the step began.\n\n")
		for _, c := range over {
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Title, c.File)
		}
	}
	if len(sum.Thresholds) > 0 {
		b.WriteString("## Thresholds\n")
		rows, failed := thresholdRows(sum, func(s string) string { return "`" + s + "`" }, "**FAIL**")
		fmt.Fprintf(&b, "%d of %d checks failed.\n\n", failed, len(sum.Thresholds))
		mdTable(&b, thresholdHeader, rows)
	}
	b.WriteString("## Files\n- `summary.json`: every figure above, for scripts\n- `samples.csv`, `samples.json`: the sampled server metrics\n- `steps/*/*.lll`: raw results (`loadlab report`, `loadlab plot`, `loadlab compare` read them)\n- `report.html`: the same charts, interactive, self-contained\n- `loadlab compare steps/*` tells which differences between steps are real (bootstrap confidence intervals)\n")
	return b.String()
}

func writeHTML(dir string, sum *summary.Summary, f *folder, perStep [][]chartFile, pct, over []chartFile) error {
	// The answer first: the findings as a list, then the comparison across
	// configurations and rates and the thresholds; the background and the
	// per-step detail after them.
	page := web.Page{Title: sum.Name, Findings: summary.Texts(sum.Findings)}
	page.Sections = append(page.Sections, comparisonSection(sum, pct))
	if th := thresholdSection(sum); th != nil {
		page.Sections = append(page.Sections, *th)
	}
	if len(over) > 0 {
		sec := web.Section{Title: "Server metrics, every step", Text: "Each sampled series of every step on one chart, against seconds since the step began."}
		for _, c := range over {
			sec.Charts = append(sec.Charts, c.Chart)
		}
		page.Sections = append(page.Sections, sec)
	}
	if sum.Description != "" {
		page.Sections = append(page.Sections, web.Section{Title: "Background", Text: sum.Description})
	}
	for i, st := range sum.Steps {
		sec := web.Section{Title: st.Name, Collapsed: true}
		var text strings.Builder
		if st.Aborted != "" {
			text.WriteString("Step stopped: " + st.Aborted + "\n\n")
		}
		for _, d := range st.Deaths {
			fmt.Fprintf(&text, "Component %s failed (%s). Last output:\n%s\n\n", d.Name, orText(d.Exit, d.StartError), strings.Join(d.LastOutput, "\n"))
		}
		for j, sc := range st.Scenarios {
			fmt.Fprintf(&text, "%s: %s at %s\n%s\n", sc.Name, sc.Target, sc.Rate, f.steps[i].texts[j])
		}
		sec.Text = text.String()
		for _, c := range perStep[i] {
			sec.Charts = append(sec.Charts, c.Chart)
		}
		page.Sections = append(page.Sections, sec)
	}
	out, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	if err := web.Write(bw, page); err != nil {
		out.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// comparisonSection is the comparison of every configuration and rate,
// per scenario, with the CPU table and the latency distributions.
func comparisonSection(sum *summary.Summary, pct []chartFile) web.Section {
	cmp := web.Section{Title: "Comparison"}
	for _, name := range sum.ScenarioNames() {
		hdr := append([]string(nil), comparisonHeader...)
		hdr[0] = name + ": configuration"
		cmp.Tables = append(cmp.Tables, web.Table{Header: hdr, Rows: comparisonRows(sum, name)})
	}
	if rows := searchRows(sum); len(rows) > 0 {
		cmp.Tables = append(cmp.Tables, web.Table{Header: searchHeader, Rows: rows})
	}
	if rows := predictionRows(sum, "MISS"); len(rows) > 0 {
		cmp.Text = predictionNote()
		cmp.Tables = append(cmp.Tables, web.Table{Header: predictionHeader, Rows: rows})
	}
	if h, rows := cpuRows(sum); len(h) > 1 {
		cmp.Tables = append(cmp.Tables, web.Table{Header: h, Rows: rows})
	}
	for _, c := range pct {
		cmp.Charts = append(cmp.Charts, c.Chart)
	}
	return cmp
}

// thresholdSection lists every threshold check and how many failed, as
// report.md does; nil when the plan has none.
func thresholdSection(sum *summary.Summary) *web.Section {
	if len(sum.Thresholds) == 0 {
		return nil
	}
	rows, failed := thresholdRows(sum, func(s string) string { return s }, "FAIL")
	return &web.Section{Title: "Thresholds", Text: fmt.Sprintf("%d of %d checks failed.", failed, len(sum.Thresholds)),
		Tables: []web.Table{{Header: thresholdHeader, Rows: rows}}}
}

var thresholdHeader = []string{"Threshold", "Step", "Scenario", "Measured", "Verdict"}

// thresholdRows is the thresholds table, one row a check, the threshold
// written by code and a failure by fail; it also counts the failures.
func thresholdRows(sum *summary.Summary, code func(string) string, fail string) (rows [][]string, failed int) {
	for _, t := range sum.Thresholds {
		verdict := "pass"
		if !t.Pass {
			verdict = fail
			failed++
		}
		rows = append(rows, []string{code(t.Threshold), t.Step, t.Scenario, t.Measured, verdict})
	}
	return rows, failed
}
