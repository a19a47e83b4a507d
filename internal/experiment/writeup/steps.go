package writeup

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
)

// manySteps is the number of steps above which a step's text reports are
// not repeated in the report (the step table and the linked files hold
// their figures): a capacity search or a matrix runs 12 to 20 steps.
const manySteps = 4

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
					s.Blocks = append(s.Blocks, text(fmt.Sprintf("`%s` %s", sc.Target, loadPhrase(sc))))
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

// loadPhrase says how a scenario was sent: "at 40/s", or "by 32 users
// (a closed loop: each sends its next request when its answer came)".
func loadPhrase(sc *summary.ScenarioResult) string {
	if sc.Closed() {
		return "by " + load.Closed(sc.Users).String() + " (" + closedLoopNote + ")"
	}
	return "at " + sc.Rate
}

// closedLoopNote is what a closed loop is, for a reader who never ran one.
const closedLoopNote = "a closed loop: each user sends its next request when its answer came"
