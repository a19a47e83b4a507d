package site

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/load"
)

// fmtDur shows a latency with 3 significant digits (12.3ms, 1.24s).
func fmtDur(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	if d < 1000 {
		return d.String()
	}
	digits := int(math.Floor(math.Log10(float64(d)))) + 1
	return d.Round(time.Duration(math.Pow10(digits - 3))).String()
}

// fmtPct shows a success ratio in percent.
func fmtPct(ratio float64) string { return fmt.Sprintf("%.2f%%", 100*ratio) }

// fmtTime shows an instant in UTC, to the second.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// fmtSize shows a file size.
func fmtSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// label is one key=value label, for display and filter links.
type label struct{ Key, Value string }

// sortedLabels lists labels by key.
// labelView is a label as pages show it: a link to the runs sharing it,
// and to where its value comes from (Options.Links) when known.
type labelView struct{ Key, Value, URL, Source string }

func sortedLabels(m map[string]string) []label {
	out := make([]label, 0, len(m))
	for k, v := range m {
		out = append(out, label{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// figureCells are a run's, step's or point's headline figures as the
// summary tables show them, in figureHeader's order.
func figureCells(f archive.Figures) []string {
	l := f.Latencies
	return []string{fmt.Sprint(f.Requests), load.FmtPerSecond(f.Rate), fmtPct(f.Success),
		fmtDur(l.P50), fmtDur(l.P90), fmtDur(l.P95), fmtDur(l.P99), fmtDur(l.Max), fmtDur(l.Mean),
		load.FmtPerSecond(f.Throughput), fmtDur(f.LagP99), fmt.Sprint(f.Dropped)}
}

// figureHeader names figureCells' columns.
var figureHeader = []string{"requests", "rate", "success", "p50", "p90", "p95", "p99", "max", "mean", "throughput", "lag p99", "dropped"}

// joinLabels shows labels as k=v, space-separated.
func joinLabels(m map[string]string) string {
	var parts []string
	for _, l := range sortedLabels(m) {
		parts = append(parts, l.Key+"="+l.Value)
	}
	return strings.Join(parts, " ")
}
