package trend

import (
	"encoding/json"
	"fmt"
	"github.com/loadlab/loadlab/internal/verdict"
	"io"
	"strconv"
	"text/tabwriter"
)

// WriteJSON writes the trend as one JSON object: {"points": [...],
// "changes": [...], ...}.
func WriteJSON(w io.Writer, t *Trend) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// WriteText writes the series as a table, each change point marked on the
// first run after it, then the changes in words and the method.
func WriteText(w io.Writer, t *Trend) error {
	what := string(t.Metric)
	if t.Scenario != "" {
		what += " of scenario " + t.Scenario
	}
	order := "by start time"
	if t.By != "" {
		order = "by " + t.By
	}
	fmt.Fprintf(w, "%s (%s), %s: %d runs, %s\n\n", what, t.Unit, order, len(t.Points), plural(len(t.Changes), "change"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	label := "started"
	if t.By != "" {
		label = t.By
	}
	fmt.Fprintf(tw, "\t#\t%s\t%s\t%s\t\n", label, "run", t.Metric)
	changes := map[int]Change{}
	for _, c := range t.Changes {
		changes[c.Index] = c
	}
	noisy := 0
	for i, p := range t.Points {
		mark, note := "", ""
		if c, ok := changes[i]; ok {
			mark = "▲"
			if c.Rel < 0 {
				mark = "▼"
			}
			note = "  ← " + sizeText(c)
		}
		l := p.Label
		if t.By == "" {
			l = p.Started.UTC().Format("2006-01-02 15:04:05")
		}
		if p.Accepted {
			note += "  (accepted)"
		}
		if p.Noisy != "" {
			note += "  noisy: " + p.Noisy
			noisy++
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", mark, i+1, l, p.ID, figure(float64(p.Value)), note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if noisy > 0 {
		fmt.Fprintf(w, "\n%s noisy: the machine disturbed %s (its own schedule lag a large share of its p99, a hypervisor's steal, or a saturated generator; loadlab archive show RUN says which), so %s weaker evidence\n",
			plural(noisy, "run"), map[bool]string{true: "it", false: "them"}[noisy == 1], map[bool]string{true: "its figure is", false: "their figures are"}[noisy == 1])
	}
	if len(t.Changes) > 0 {
		fmt.Fprintln(w)
	}
	for _, c := range t.Changes {
		fmt.Fprintln(w, Describe(t, c))
	}
	if t.Gate != nil {
		fmt.Fprintf(w, "\nnewest: %s\n", t.Gate.Text)
	}
	_, err := fmt.Fprintf(w, "\nmethod: %s\n", t.Method)
	return err
}

// Describe says one change in a line: where, from what to what, its size
// with its interval, and whether it is a regression.
func Describe(t *Trend, c Change) string {
	where := "run " + c.ID
	if t.By != "" {
		where = fmt.Sprintf("%s %s (run %s)", t.By, c.Label, c.ID)
	}
	kind := "improvement"
	if c.Worse {
		kind = "regression"
	}
	return fmt.Sprintf("%s from %s: %s %s -> %s %s, %s (%s before, %d after)",
		kind, where, t.Metric, figure(float64(c.Before)), figure(float64(c.After)), t.Unit,
		sizeText(c), plural(c.RunsBefore, "run"), c.RunsAfter)
}

// sizeText is a change's size with its interval: "+37.2% (99% CI +30.1%
// to +44.0%)", a factor from +100% on, points for a rate.
func sizeText(c Change) string {
	if v := c.Verdict; v != nil && !v.Relative {
		return fmt.Sprintf("%s (%s%% CI %s to %s)", verdict.Size(v.Stat, v.Change, true), strconv.FormatFloat(100*v.Confidence, 'g', 4, 64),
			verdict.Size(v.Stat, v.Lo, true), verdict.Size(v.Stat, v.Hi, true))
	}
	s := rel(float64(c.Rel))
	if c.CI[0].Finite() && c.CI[1].Finite() {
		conf := Confidence
		if c.Verdict != nil {
			conf = c.Verdict.Confidence
		}
		s += fmt.Sprintf(" (%s%% CI %s to %s)", strconv.FormatFloat(100*conf, 'g', 4, 64), rel(float64(c.CI[0])), rel(float64(c.CI[1])))
	}
	return s
}

func rel(r float64) string {
	if r >= 1 {
		return "x" + strconv.FormatFloat(1+r, 'f', 3-digitsBefore(1+r), 64)
	}
	return fmt.Sprintf("%+.1f%%", 100*r)
}

func digitsBefore(x float64) int {
	n := len(strconv.FormatFloat(x, 'f', 0, 64))
	return min(n, 3)
}

func figure(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
