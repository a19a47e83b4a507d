package trend

import (
	"fmt"

	"github.com/loadlab/loadlab/internal/archive/changepoint"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/verdict"
)

// Gate is the CI gate's verdict: the newest build (the newest value of
// By, with its replicates; the newest run when By is empty) against the
// level since the last change or accepted baseline.
type Gate struct {
	// Label is the newest build's value of By, Runs its runs' IDs.
	Label string   `json:"label,omitempty"`
	Runs  []string `json:"runs"`
	// From is the first run of the baseline, Baseline why it starts
	// there: "the last change", "the accepted run" or "the start of the
	// series".
	From     string `json:"from,omitempty"`
	FromRun  string `json:"from_run,omitempty"`
	Baseline string `json:"baseline"`
	// Accepted says the newest build itself was accepted: nothing to gate.
	Accepted bool `json:"accepted,omitempty"`
	// Verdict is the judgement; Regression says it is a regression.
	Verdict    verdict.Verdict `json:"verdict"`
	Regression bool            `json:"regression"`
	// Text says it in a line, naming the newest build's first run.
	Text string `json:"text"`
}

// window keeps the points from the first of Options.Since's value on, and
// the last Options.Last builds of them.
func window(ps []Point, o Options) ([]Point, error) {
	if o.Since != "" {
		start := -1
		for i, p := range ps {
			if p.Label == o.Since {
				start = i
				break
			}
		}
		if start < 0 {
			if o.By == "" {
				return nil, badinput.Field("-since", "needs -by: the value of the label to start from")
			}
			return nil, badinput.Field("-since", "no run is labelled %s=%s", o.By, o.Since)
		}
		ps = ps[start:]
	}
	if o.Last > 0 {
		builds, start := 0, len(ps)
		for i := len(ps) - 1; i >= 0; i-- {
			if i == len(ps)-1 || o.By == "" || ps[i].Label != ps[i+1].Label {
				builds++
			}
			if builds > o.Last {
				break
			}
			start = i
		}
		ps = ps[start:]
	}
	return ps, nil
}

// gate judges the newest build against the level before it.
func (j *judge) gate(t *Trend) (*Gate, error) {
	if len(j.groups) == 0 {
		return nil, nil
	}
	n := len(j.groups) - 1
	newest := j.groups[n]
	g := &Gate{Label: newest.label, Baseline: "the start of the series"}
	for i := newest.from; i < newest.to; i++ {
		g.Runs = append(g.Runs, t.Points[i].ID)
	}
	start := 0
	for gi := n; gi >= 0; gi-- {
		accepted := false
		for i := j.groups[gi].from; i < j.groups[gi].to; i++ {
			accepted = accepted || t.Points[i].Accepted
		}
		if !accepted {
			continue
		}
		if gi == n {
			g.Accepted = true
			g.Verdict = verdict.Verdict{Stat: verdict.Stat(t.Metric), Outcome: verdict.Same}
			g.Text = fmt.Sprintf("%s was accepted as the baseline: nothing to gate", j.where(n))
			return g, nil
		}
		start, g.Baseline = gi, "the accepted run"
		break
	}
	// A change since the baseline moves it when it made the figure better;
	// a regression stays one, run after run, until it is accepted (archive
	// accept) or a later change undoes it.
	var regressed *Change
	for i := range t.Changes {
		c := &t.Changes[i]
		gi := j.groupOf(c.Index)
		if gi <= start {
			continue
		}
		if c.Worse {
			if gi < n { // a change at the newest build: judged below, against the level before it
				regressed = c
			}
			continue
		}
		regressed = nil
		if gi < n {
			start, g.Baseline = gi, "the last change"
		}
	}
	if regressed != nil {
		gi := j.groupOf(regressed.Index)
		first := t.Points[j.groups[start].from]
		g.From, g.FromRun = first.Label, first.ID
		if regressed.Verdict != nil {
			g.Verdict = *regressed.Verdict
		} else {
			g.Verdict = verdict.Verdict{Stat: verdict.Stat(t.Metric), Outcome: verdict.Worse}
		}
		g.Regression = true
		g.Text = fmt.Sprintf("%s is at the level of a regression not accepted since %s: %s (loadlab archive accept -db DB %s makes it the new normal)",
			j.where(n), j.where(gi), Describe(t, *regressed), regressed.ID)
		return g, nil
	}
	// The level is that of the builds since the baseline, the latest
	// half window of them at most (as a candidate change is judged: package
	// changepoint), so that a long quiet history costs the gate no more
	// than a short one.
	if recent := n - changepoint.DefaultWindow/2; recent > start {
		start, g.Baseline = recent, g.Baseline+", its latest "+fmt.Sprint(changepoint.DefaultWindow/2)+" builds"
	}
	first := t.Points[j.groups[start].from]
	g.From, g.FromRun = first.Label, first.ID
	if n == 0 {
		g.Verdict = verdict.Verdict{Stat: verdict.Stat(t.Metric), Outcome: verdict.CannotTell, RunsAfter: newest.to - newest.from}
		g.Text = fmt.Sprintf("cannot tell: %s has nothing before it to be judged against", j.where(n))
		return g, nil
	}
	v, err := j.compare(start, n, n+1, 1)
	if err != nil {
		return nil, err
	}
	g.Verdict = *v
	g.Regression = v.Outcome == verdict.Worse
	base := "the level since " + j.where(start) + " (" + g.Baseline + ")"
	g.Text = fmt.Sprintf("%s against %s: %s", j.where(n), base, v.Text)
	return g, nil
}

// where names build gi: "commit abc (run X)", or "run X" without By.
func (j *judge) where(gi int) string {
	p := j.points[j.groups[gi].from]
	if j.o.By == "" {
		return "run " + p.ID
	}
	return fmt.Sprintf("%s %s (run %s)", j.o.By, p.Label, p.ID)
}

// groupOf is the group of point i.
func (j *judge) groupOf(i int) int {
	for g, gr := range j.groups {
		if i >= gr.from && i < gr.to {
			return g
		}
	}
	return -1
}
