package writeup

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
)

// The findings' sentences about single steps, taken apart so that a
// mechanism the model names at several rates is said once, with the steps
// listed.
var (
	explainRE = regexp.MustCompile(`^In step "(.*?)", the model \(predicted (.*?)\) explains it: (.*)\.$`)
	missRE    = regexp.MustCompile(`^In step "(.*?)", (.+?) measured (.*?): (.*)\.$`)
	numberRE  = regexp.MustCompile(`[0-9][0-9.,]*`)
	figureRE  = regexp.MustCompile(`[0-9][0-9.,]*(ms|µs|ns|s|%)?`)
)

// mechanism is what a sentence says once its figures are masked, up to
// its first ';' (the details after it, such as checkout timeouts, differ
// from step to step while the mechanism does not).
func mechanism(text string) string {
	m := figureRE.ReplaceAllString(text, "#")
	if i := strings.Index(m, ";"); i > 0 {
		m = m[:i]
	}
	return m
}

// group is one mechanism (or one cause of a miss) and the steps it was
// stated for, with each step's own sentence.
type group struct {
	text  string   // the first step's wording
	steps []string // every step it was stated for
	each  [][]string
}

// groupBy gathers sentences that state the same mechanism. key returns the step, the wording and the row kept for the
// collapsed table; ok false keeps the sentence on its own.
func groupBy(fs []string, key func(string) (step, text string, row []string, ok bool)) (groups []*group, alone []string) {
	idx := map[string]*group{}
	for _, f := range fs {
		step, t, row, ok := key(f)
		if !ok {
			alone = append(alone, f)
			continue
		}
		sig := mechanism(t)
		g := idx[sig]
		if g == nil {
			g = &group{text: t}
			idx[sig] = g
			groups = append(groups, g)
		}
		if len(g.steps) == 0 || g.steps[len(g.steps)-1] != step {
			g.steps = append(g.steps, step)
		}
		g.each = append(g.each, row)
	}
	return groups, alone
}

// said is a group as one sentence: the mechanism once, the steps listed,
// and where each step's own figures are ("below", "in the report").
func (g *group) said(lead, where string) string {
	if len(g.steps) == 1 {
		return fmt.Sprintf("%s %s: %s.", lead, g.steps[0], g.text)
	}
	return fmt.Sprintf("%s %d steps (%s): %s (figures of %s; each step's %s).", lead, len(g.steps), listSteps(g.steps), g.text, g.steps[0], where)
}

// sayModel says the model's misses and explanations of single steps once
// per mechanism, the steps listed: missed leads a miss ("**Missed** in"),
// where says where each step's own figures are. It returns the
// explanations' groups too.
func sayModel(misses, explained []string, missed, where string) ([]string, []*group) {
	mg, malone := groupBy(misses, missKey)
	eg, ealone := groupBy(explained, explainKey)
	var items []string
	for _, g := range mg {
		items = append(items, g.said(missed, where))
	}
	items = append(items, malone...)
	for _, g := range eg {
		items = append(items, g.said("What the model says happened in", where))
	}
	return append(items, ealone...), eg
}

// missKey takes apart a miss ("In step "s", X measured Y: why.") for
// groupBy.
func missKey(f string) (string, string, []string, bool) {
	m := missRE.FindStringSubmatch(f)
	if m == nil {
		return "", "", nil, false
	}
	return m[1], m[4], []string{m[1], m[2], m[3]}, true
}

// explainKey takes apart a step's explanation ("In step "s", the model
// (predicted X) explains it: why.") for groupBy.
func explainKey(f string) (string, string, []string, bool) {
	m := explainRE.FindStringSubmatch(f)
	if m == nil {
		return "", "", nil, false
	}
	return m[1], m[3], []string{m[1], m[2], m[3]}, true
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
	if len(verdict)+len(misses)+len(explained)+len(rows)+len(sum.Calibrations) == 0 {
		return section{}, false
	}
	s := section{Title: "Against the model"}
	for _, v := range verdict {
		s.Blocks = append(s.Blocks, text(v))
	}
	if c := calibrationCost(sum.Calibrations); c != "" {
		s.Blocks = append(s.Blocks, text(c))
	}
	items, eg := sayModel(misses, explained, "**Missed** in", "below")
	if len(items) > 0 {
		s.Blocks = append(s.Blocks, block{Findings: items})
	}
	// Each step's own explanation (its figures) goes beside its
	// predictions; one for a step the table leaves out (stopped) keeps a
	// table of its own.
	why := map[string]string{}
	var order []string
	for _, g := range eg {
		if len(g.steps) == 1 && len(g.each) == 1 {
			continue // said in full above
		}
		for _, e := range g.each {
			if _, ok := why[e[0]]; !ok {
				order = append(order, e[0])
			}
			why[e[0]] = e[2] + " (predicted " + e[1] + ")"
		}
	}
	header := predictionHeader
	if len(why) > 0 {
		header = append(append([]string(nil), predictionHeader...), "What the model says happened")
		done := map[string]bool{}
		for i, r := range rows {
			w := "-"
			if e, ok := why[r[0]]; ok && !done[r[0]] {
				w, done[r[0]] = e, true
			}
			rows[i] = append(r, w)
		}
		var left [][]string
		for _, st := range order {
			if !done[st] {
				left = append(left, []string{st, why[st]})
			}
		}
		if len(left) > 0 {
			s.Blocks = append(s.Blocks, collapsed("What the model says happened in the other steps", tableOf([]string{"Step", "Explanation"}, left)))
		}
	}
	if len(rows) > 0 {
		s.Blocks = append(s.Blocks, collapsed("Predicted and measured, every step", text(predictionNote()), tableOf(header, rows)))
	}
	return s, true
}

// listSteps names steps whose names differ only in one figure once:
// "16 workers at 81.3, 40.6, 60.9 req/s (probe)".
func listSteps(names []string) string {
	type pattern struct {
		masked string   // the name with every figure masked
		nums   []string // the first name's figures
		at     int      // the figure that varies (-1: one name so far)
		vals   []string // its values, in order
	}
	var order []*pattern
	for _, n := range names {
		masked := numberRE.ReplaceAllString(n, "#")
		nums := numberRE.FindAllString(n, -1)
		merged := false
		for _, p := range order {
			if p.masked != masked || len(nums) == 0 {
				continue
			}
			diff := -1
			for i := range nums {
				if nums[i] != p.nums[i] {
					if diff >= 0 {
						diff = -2
						break
					}
					diff = i
				}
			}
			if diff >= 0 && (p.at < 0 || p.at == diff) {
				if p.at < 0 {
					p.at, p.vals = diff, []string{p.nums[diff]}
				}
				p.vals = append(p.vals, nums[diff])
				merged = true
				break
			}
		}
		if !merged {
			order = append(order, &pattern{masked: masked, nums: nums, at: -1})
		}
	}
	var out []string
	for _, p := range order {
		parts := strings.Split(p.masked, "#")
		var b strings.Builder
		for i, part := range parts {
			b.WriteString(part)
			if i < len(p.nums) {
				if i == p.at {
					b.WriteString(strings.Join(p.vals, ", "))
				} else {
					b.WriteString(p.nums[i])
				}
			}
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "; ")
}

// calibrationCost says what the black-box calibrations cost the target,
// beside the steps' own requests: "" when none ran.
func calibrationCost(cs []summary.Calibration) string {
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	var total uint64
	for _, c := range cs {
		total += c.Requests
		where := ""
		switch {
		case c.Before != "":
			where = fmt.Sprintf(" before step %q", c.Before)
		case c.Configuration != "":
			where = " before the capacity search of " + c.Configuration
		}
		parts = append(parts, fmt.Sprintf("%s (`%s`)%s: %d requests, up to %s req/s, in %s",
			c.Scenario, c.Target, where, c.Requests, load.FmtRate(c.HighestRate), c.Took.Round(100*time.Millisecond)))
	}
	lead := "The model of a scenario with calibrate: true is a queue fitted against its live target, once per configuration; the calibration sent requests of its own, not counted in any step"
	if len(cs) == 1 {
		return lead + ": " + parts[0] + "."
	}
	return fmt.Sprintf("%s: %s; %d requests in all.", lead, strings.Join(parts, "; "), total)
}
