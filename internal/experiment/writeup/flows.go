package writeup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// flowSection shows each flow scenario of each step as `loadlab report`
// and k6 do: its sessions (started, completed, failed by what stopped
// them, dropped, how long they took), a table of its request steps in the
// flow's order and a table of its checks; false when no scenario ran a
// flow (or the summary predates the flow figures).
func flowSection(sum *summary.Summary) (section, bool) {
	s := section{Title: "Flows"}
	var runs [][]block
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			if sc.Flow == nil {
				continue
			}
			runs = append(runs, flowBlocks(st.Name+", "+sc.Name, sc.Flow))
		}
	}
	if len(runs) == 0 {
		return s, false
	}
	s.Blocks = append(s.Blocks, text("Each flow's sessions, its request steps (latency from when each request was due, so a slow answer that delayed the next request is not hidden) and its checks, counted from the step's results stream."))
	s.Blocks = append(s.Blocks, runs[0]...)
	if len(runs) > 1 {
		var more []block
		for _, r := range runs[1:] {
			more = append(more, r...)
		}
		s.Blocks = append(s.Blocks, collapsed(fmt.Sprintf("The other steps' flows (%d)", len(runs)-1), more...))
	}
	return s, true
}

// flowBlocks are one flow scenario's sessions line, steps table and
// checks table.
func flowBlocks(title string, f *summary.Flow) []block {
	bs := []block{{Minor: title}, text(sessionsLine(f))}
	var rows [][]string
	for _, st := range f.Steps {
		l := st.Latency
		rows = append(rows, []string{st.Name, fmt.Sprint(st.Requests), pct(st.Success),
			summary.FmtSeconds(l.P50.Seconds()), summary.FmtSeconds(l.P95.Seconds()), summary.FmtSeconds(l.P99.Seconds())})
	}
	if len(rows) > 0 {
		bs = append(bs, tableOf([]string{"Step", "Requests", "Success", "p50", "p95", "p99"}, rows))
	}
	rows = nil
	for _, c := range f.Checks {
		mark := "✓"
		if c.Fails > 0 {
			mark = "✗"
		}
		rows = append(rows, []string{mark + " " + c.Step + ": " + c.Name, fmt.Sprint(c.Passes), fmt.Sprint(c.Fails), pct(c.Ratio())})
	}
	if len(rows) > 0 {
		bs = append(bs, tableOf([]string{"Check", "Passes", "Fails", "Passed"}, rows))
	}
	return bs
}

// sessionsLine says how the flow's sessions went: started, completed,
// failed and by what, dropped, and their durations' median and p99.
func sessionsLine(f *summary.Flow) string {
	s := f.Sessions
	line := fmt.Sprintf("Sessions: %d started, %d completed, %d failed", s.Started, s.Completed, s.Failed)
	if len(s.FailedBy) > 0 {
		by := make([]string, 0, len(s.FailedBy))
		for what := range s.FailedBy {
			by = append(by, what)
		}
		sort.Slice(by, func(i, j int) bool {
			return s.FailedBy[by[i]] > s.FailedBy[by[j]] || s.FailedBy[by[i]] == s.FailedBy[by[j]] && by[i] < by[j]
		})
		for i, what := range by {
			by[i] = fmt.Sprintf("%d by %s", s.FailedBy[what], what)
		}
		line += " (" + strings.Join(by, ", ") + ")"
	}
	if s.Interrupted > 0 {
		line += fmt.Sprintf(", %d interrupted", s.Interrupted)
	}
	line += fmt.Sprintf(", %d dropped (never started: due while the bound on sessions in flight was reached).", s.Dropped)
	if s.Started > 0 {
		line += fmt.Sprintf(" Session duration: p50 %s, p99 %s.", summary.FmtSeconds(f.SessionDuration.P50.Seconds()), summary.FmtSeconds(f.SessionDuration.P99.Seconds()))
	}
	return line
}

// pct writes a ratio as a percentage with two decimals.
func pct(r float64) string { return fmt.Sprintf("%.2f%%", 100*r) }
