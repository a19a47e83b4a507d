package writeup

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/metrics"
)

func latencyCells(l metrics.LatencySummary) string {
	return strings.Join([]string{summary.FmtSeconds(l.Mean.Seconds()), summary.FmtSeconds(l.P50.Seconds()), summary.FmtSeconds(l.P95.Seconds()), summary.FmtSeconds(l.P99.Seconds()), summary.FmtSeconds(l.Max.Seconds())}, ", ")
}

// comparisonTable is the comparison table of one scenario. Its second
// column is each step's rate (RPS); when a step ran as a closed loop, it
// is the load (a paced step's rate, a closed loop's users and the
// requests a second they were answered with success at).
func comparisonTable(sum *summary.Summary, name string) block {
	rows, closed := comparisonRows(sum, name)
	if !closed {
		return tableOf(comparisonHeader, rows)
	}
	header := append([]string(nil), comparisonHeader...)
	header[1] = "Load (rate, or users and throughput)"
	return tableOf(header, rows)
}

// comparisonRows is the comparison table: Configuration | RPS |
// Latencies [mean, 50, 95, 99, max] | Success ratio, per scenario;
// closed says a step of the table ran as a closed loop.
func comparisonRows(sum *summary.Summary, name string) (rows [][]string, closed bool) {
	for _, st := range sum.Steps {
		sc := st.Scenario(name)
		if sc == nil {
			continue
		}
		rate := sc.Achieved()
		closed = closed || sc.Closed()
		if first := st.Scenarios[0]; first.Name != name {
			// A scenario beside the flood: its own rate says nothing of the
			// step, the flood's does.
			rate += " (" + first.Name + " " + first.Load().String() + ")"
			closed = closed || first.Closed()
		}
		row := []string{sum.GroupLabel(st), rate, latencyCells(sc.Latency), fmt.Sprintf("%.2f%%", 100*sc.Success), strconv.FormatUint(sc.Requests, 10)}
		if st.Aborted != "" {
			row[3] += " (stopped)"
		}
		rows = append(rows, row)
	}
	return rows, closed
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
			summary.FmtSeconds(c.Predicted.P50.Seconds()) + " \u2502 " + summary.FmtSeconds(c.Measured.P50.Seconds()),
			summary.FmtSeconds(c.Predicted.P99.Seconds()) + " \u2502 " + summary.FmtSeconds(c.Measured.P99.Seconds()),
			verdict})
	}
	return rows
}

// searchRows lists a capacity search's runs by configuration and rate
// (where the knee is reads down the table), with each run's latencies and
// request count.
func searchRows(sum *summary.Summary) [][]string {
	steps := map[string]*summary.StepResult{}
	for _, st := range sum.Steps {
		steps[st.Name] = st
	}
	var rows [][]string
	for _, r := range sum.Search {
		probes := append([]summary.SearchProbe(nil), r.Probes...)
		sort.SliceStable(probes, func(i, j int) bool { return probes[i].Rate < probes[j].Rate })
		for _, p := range probes {
			verdict := "holds"
			if !p.Pass {
				verdict = "fails: " + strings.TrimPrefix(p.Broken, r.Scenario+": ")
			}
			if p.Confirmation {
				verdict += " (confirmation)"
			}
			lat, n := summary.FmtSeconds(p.P99), "-"
			if st := steps[p.Step]; st != nil {
				if sc := st.Scenario(r.Scenario); sc != nil {
					lat, n = latencyCells(sc.Latency), strconv.FormatUint(sc.Requests, 10)
				}
			}
			rows = append(rows, []string{r.Configuration, load.FmtRate(p.Rate), fmt.Sprintf("%.2f%%", 100*p.Success), lat, n, verdict})
		}
	}
	return rows
}

var searchHeader = []string{"Configuration", "Rate (req/s)", "Success", "Latencies [mean, 50, 95, 99, max]", "Requests", "Verdict"}

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

// fileExcerpt returns the text of the file at path for the setup section,
// cut at 60 lines (the rest said to be in file, its name as recorded).
func fileExcerpt(path, file string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 60 {
		lines = append(lines[:60], fmt.Sprintf("... (%d more lines in %s)", len(lines)-60, file))
	}
	return strings.Join(lines, "\n")
}

var stepHeader = []string{"Step", "Scenario", "Requests", "Rate, throughput", "Success", "Status codes", "Errors", "Dropped, late", "Files"}

// stepRows is every step's figures beyond the comparison's, a row per
// scenario: what its text report says besides the latencies, and where
// its text report and raw results are.
func stepRows(sum *summary.Summary) [][]string {
	var rows [][]string
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			codes := make([]string, 0, len(sc.StatusCodes))
			for c := range sc.StatusCodes {
				codes = append(codes, c)
			}
			sort.Strings(codes)
			for i, c := range codes {
				codes[i] = c + ":" + strconv.FormatUint(sc.StatusCodes[c], 10)
			}
			errs := strings.Join(sc.Errors, "; ")
			if sc.RunError != "" {
				errs = strings.TrimPrefix(errs+"; "+sc.RunError, "; ")
			}
			files := fmt.Sprintf("[%s](%s)", path.Base(sc.Results), sc.Results)
			if sc.Report != "" {
				files = fmt.Sprintf("[%s](%s), ", path.Base(sc.Report), sc.Report) + files
			}
			rows = append(rows, []string{st.Name, sc.Name, strconv.FormatUint(sc.Requests, 10),
				fmt.Sprintf("%.1f/s, %.1f/s", sc.RateActual, sc.Throughput), fmt.Sprintf("%.2f%%", 100*sc.Success),
				strings.Join(codes, " "), orText(errs, "-"), fmt.Sprintf("%d, %d", sc.Dropped, sc.Late), files})
		}
	}
	return rows
}

// thresholdTable is every threshold check: a row per step, a column per
// threshold and scenario (the measured figure and the verdict); it also
// counts the failures.
func thresholdTable(sum *summary.Summary) (header []string, rows [][]string, failed int) {
	name := func(t summary.ThresholdResult) string {
		if t.Scenario == "" || strings.HasPrefix(t.Threshold, t.Scenario+":") {
			return t.Threshold
		}
		return t.Scenario + ": " + t.Threshold
	}
	col := map[string]int{}
	header = []string{"Step"}
	for _, t := range sum.Thresholds {
		if _, ok := col[name(t)]; !ok {
			col[name(t)] = len(header)
			header = append(header, "`"+name(t)+"`")
		}
	}
	at := map[string]int{}
	for _, t := range sum.Thresholds {
		i, ok := at[t.Step]
		if !ok {
			i = len(rows)
			at[t.Step] = i
			rows = append(rows, make([]string, len(header)))
			rows[i][0] = t.Step
			for j := 1; j < len(header); j++ {
				rows[i][j] = "-"
			}
		}
		verdict := "pass"
		if !t.Pass {
			verdict = "**FAIL**"
			failed++
		}
		rows[i][col[name(t)]] = verdict + " (" + t.Measured + ")"
	}
	return header, rows, failed
}
