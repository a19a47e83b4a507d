package writeup

import (
	"fmt"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

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
		case summary.KindFailure, summary.KindComparison, summary.KindSweep, summary.KindLimit, summary.KindDisturbed:
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
