package writeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// The findings' sentences about single steps, taken apart so that a
// mechanism the model names at several rates is said once, with the steps
// listed.
var (
	explainRE = regexp.MustCompile(`^In step "(.*?)", the model \(predicted (.*?)\) explains it: (.*)\.$`)
	missRE    = regexp.MustCompile(`^In step "(.*?)", (.+?) measured (.*?): (.*)\.$`)
	numberRE  = regexp.MustCompile(`[0-9][0-9.,]*`)
)

// group is one mechanism (or one cause of a miss) and the steps it was
// stated for, with each step's own sentence.
type group struct {
	text  string   // the first step's wording
	steps []string // every step it was stated for
	each  [][]string
}

// groupBy gathers sentences whose words agree once their figures are
// masked. key returns the step, the wording and the row kept for the
// collapsed table; ok false keeps the sentence on its own.
func groupBy(fs []string, key func(string) (step, text string, row []string, ok bool)) (groups []*group, alone []string) {
	idx := map[string]*group{}
	for _, f := range fs {
		step, t, row, ok := key(f)
		if !ok {
			alone = append(alone, f)
			continue
		}
		sig := numberRE.ReplaceAllString(t, "#")
		g := idx[sig]
		if g == nil {
			g = &group{text: t}
			idx[sig] = g
			groups = append(groups, g)
		}
		g.steps = append(g.steps, step)
		g.each = append(g.each, row)
	}
	return groups, alone
}

// said is a group as one sentence: the mechanism once, the steps listed.
func (g *group) said(lead string) string {
	if len(g.steps) == 1 {
		return fmt.Sprintf("%s %s: %s.", lead, g.steps[0], g.text)
	}
	return fmt.Sprintf("%s %d steps (%s): %s (figures of %s; each step's below).", lead, len(g.steps), listSteps(g.steps), g.text, g.steps[0])
}

// modelSection says what differs from the model: the run-wide verdict on
// its predictions, the misses with their likely causes and what it says
// happened, each said once; the predicted and measured table and every
// step's explanation collapsed. False when nothing was modelled.
func modelSection(sum *summary.Summary) (section, bool) {
	var verdict []string
	var misses, explained []string
	for _, fd := range sum.Findings {
		switch {
		case fd.Kind == summary.KindPrediction && strings.HasPrefix(fd.Text, "In step "):
			misses = append(misses, fd.String())
		case fd.Kind == summary.KindPrediction:
			verdict = append(verdict, fd.String())
		case fd.Kind == summary.KindModel:
			explained = append(explained, fd.String())
		}
	}
	rows := predictionRows(sum, "**MISS**")
	if len(verdict)+len(misses)+len(explained)+len(rows) == 0 {
		return section{}, false
	}
	s := section{Title: "Against the model"}
	for _, v := range verdict {
		s.Blocks = append(s.Blocks, text(v))
	}
	mg, malone := groupBy(misses, func(f string) (string, string, []string, bool) {
		m := missRE.FindStringSubmatch(f)
		if m == nil {
			return "", "", nil, false
		}
		return m[1], m[4], []string{m[1], m[2], m[3]}, true
	})
	eg, ealone := groupBy(explained, func(f string) (string, string, []string, bool) {
		m := explainRE.FindStringSubmatch(f)
		if m == nil {
			return "", "", nil, false
		}
		return m[1], m[3], []string{m[1], m[2], m[3]}, true
	})
	var items []string
	for _, g := range mg {
		items = append(items, g.said("**Missed** in"))
	}
	items = append(items, malone...)
	for _, g := range eg {
		items = append(items, g.said("What happened, by the model, in"))
	}
	items = append(items, ealone...)
	if len(items) > 0 {
		s.Blocks = append(s.Blocks, block{Items: items})
	}
	if len(rows) > 0 {
		s.Blocks = append(s.Blocks, collapsed("Predicted and measured, every step", text(predictionNote()), tableOf(predictionHeader, rows)))
	}
	var each [][]string
	for _, g := range eg {
		each = append(each, g.each...)
	}
	if len(eg) > 0 && len(each) > len(eg) {
		s.Blocks = append(s.Blocks, collapsed("What the model says happened, every step", tableOf([]string{"Step", "Predicted", "Explanation"}, each)))
	}
	return s, true
}

// listSteps names steps whose names differ only in a figure once:
// "16 workers at 81.3, 40.6, 60.9 req/s (probe)".
func listSteps(names []string) string {
	type pattern struct {
		masked string
		first  string
		nums   []string
	}
	var order []*pattern
	idx := map[string]*pattern{}
	for _, n := range names {
		locs := numberRE.FindAllStringIndex(n, -1)
		if len(locs) == 0 {
			order = append(order, &pattern{masked: n, first: n})
			continue
		}
		// The last figure is the one that varies in a step's name (a rate).
		l := locs[len(locs)-1]
		masked := n[:l[0]] + "#" + n[l[1]:]
		p := idx[masked]
		if p == nil {
			p = &pattern{masked: masked, first: n}
			idx[masked] = p
			order = append(order, p)
		}
		p.nums = append(p.nums, n[l[0]:l[1]])
	}
	var out []string
	for _, p := range order {
		if len(p.nums) < 2 {
			out = append(out, p.first)
			continue
		}
		out = append(out, strings.Replace(p.masked, "#", strings.Join(p.nums, ", "), 1))
	}
	return strings.Join(out, "; ")
}
