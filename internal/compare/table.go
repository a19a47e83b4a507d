package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loadlab/loadlab/internal/load"
)

// Header is the table's column titles.
var Header = []string{"Run", "Stat", "Baseline", "Value", "Difference", "95% CI", "Verdict"}

// Cells returns the row formatted as table cells matching Header:
// latencies as durations, the success ratio in percent and its difference
// in percentage points.
func (r Row) Cells(confidence float64) []string {
	f, d := fmtMs, fmtDiffMs
	switch r.Stat {
	case Success:
		f, d = fmtPct, fmtPP
	case Throughput:
		f, d = fmtRate, fmtDiffRate
	}
	diff := d(r.Diff)
	switch {
	case r.Stat == Success || math.IsNaN(r.Rel) || math.IsInf(r.Rel, 0):
	case r.Rel >= 1:
		diff += fmt.Sprintf(" (x%.3g)", 1+r.Rel)
	default:
		diff += fmt.Sprintf(" (%+.1f%%)", 100*r.Rel)
	}
	ci := "-"
	switch {
	case r.Stat != Success && r.RatioLo != 0 && !math.IsNaN(r.RatioLo):
		ci = fmt.Sprintf("[x%.3f, x%.3f]", r.RatioLo, r.RatioHi) // run-level: of the ratio
	case !math.IsNaN(r.Lo):
		ci = "[" + d(r.Lo) + ", " + d(r.Hi) + "]"
	}
	return []string{r.Run, r.Stat.String(), f(r.Base), f(r.Value), diff, ci, r.Verdict}
}

// Table returns the header and every row as cells.
func (r Report) Table() (header []string, rows [][]string) {
	h := append([]string(nil), Header...)
	h[5] = fmt.Sprintf("%.0f%% CI", 100*r.Options.Confidence)
	if r.Duet {
		h[0], h[2], h[3] = "Side", "A", "B"
	}
	for _, row := range r.Rows {
		rows = append(rows, row.Cells(r.Options.Confidence))
	}
	return h, rows
}

// WriteText prints the baseline, the table and the method.
func (r Report) WriteText(w io.Writer) error {
	if r.Group != "" {
		fmt.Fprintf(w, "== %s ==\n", r.Group)
	}
	fmt.Fprintf(w, "Baseline: %s\nRequests: %s\n\n", r.Baseline, r.Sizes())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	h, rows := r.Table()
	fmt.Fprintln(tw, strings.Join(h, "\t"))
	prev := ""
	for _, c := range rows {
		if c[0] == prev {
			c = append([]string{""}, c[1:]...)
		} else {
			prev = c[0]
		}
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s", n)
	}
	_, err := fmt.Fprintf(w, "\nMethod: %s\n", r.Method())
	return err
}

// WriteMarkdown prints the table as Markdown, with the method below it.
func (r Report) WriteMarkdown(w io.Writer) error {
	if r.Group != "" {
		fmt.Fprintf(w, "### %s\n\n", r.Group)
	}
	h, rows := r.Table()
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(h, " | "), strings.Repeat(" --- |", len(h)))
	for _, c := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", n)
	}
	_, err := fmt.Fprintf(w, "\nBaseline: %s. Requests: %s. Method: %s\n", r.Baseline, r.Sizes(), r.Method())
	return err
}

func fmtMs(ms float64) string {
	if math.IsNaN(ms) {
		return "-"
	}
	return roundDur(time.Duration(ms * float64(time.Millisecond))).String()
}

func fmtDiffMs(ms float64) string { return signed(ms, fmtMs) }

// signed writes a difference with its sign: "+" or "-" and f of its size.
func signed(v float64, f func(float64) string) string {
	if math.IsNaN(v) {
		return "-"
	}
	if v < 0 {
		return "-" + f(-v)
	}
	return "+" + f(v)
}

// fmtRate is a throughput: "155.2 req/s".
func fmtRate(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return load.FmtRate(r) + " req/s"
}

func fmtDiffRate(r float64) string { return signed(r, fmtRate) }

func fmtPct(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", p)
}

func fmtPP(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%+.2f pp", p)
}

// roundDur keeps 4 significant digits.
func roundDur(d time.Duration) time.Duration {
	if d < 10000 {
		return d
	}
	digits := int(math.Floor(math.Log10(float64(d)))) + 1
	return d.Round(time.Duration(math.Pow10(digits - 4)))
}
