package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
)

// intervalTable prints one row per interval as soon as the interval
// completes (so it can follow a live attack), in fixed-width columns.
type intervalTable struct {
	w       io.Writer
	rows    int
	partial bool // a partial interval was printed
}

// intervalCols are the column titles and widths.
var intervalCols = []struct {
	title string
	width int
}{
	{"Interval", 24}, {"Requests", 9}, {"Rate", 10}, {"Throughput", 10}, {"Success", 8},
	{"min", 10}, {"mean", 10}, {"50", 10}, {"90", 10}, {"95", 10}, {"99", 10}, {"max", 10},
	{"Late", 7}, {"Dropped", 8}, {"Errors", 7}, {"Covered", 0},
}

func newIntervalTable(w io.Writer) *intervalTable { return &intervalTable{w: w} }

func (t *intervalTable) line(cells []string) error {
	var b strings.Builder
	for i, c := range cells {
		if i == len(cells)-1 {
			b.WriteString(c)
			break
		}
		fmt.Fprintf(&b, "%-*s  ", intervalCols[i].width, c)
	}
	_, err := io.WriteString(t.w, strings.TrimRight(b.String(), " ")+"\n")
	return err
}

func (t *intervalTable) row(in *metrics.Interval) error {
	if t.rows == 0 {
		titles := make([]string, len(intervalCols))
		for i, c := range intervalCols {
			titles[i] = c.title
		}
		if err := t.line(titles); err != nil {
			return err
		}
	}
	t.rows++
	l := &in.Latencies
	var errs uint64
	for _, e := range in.Errors {
		errs += e.Count
	}
	errs += in.ErrorsOmitted
	d := func(x time.Duration) string { return Round(x).String() }
	covered := ""
	if in.Partial {
		covered = "partial: " + Round(in.Covered).String()
		t.partial = true
	}
	return t.line([]string{
		in.Start.UTC().Format("2006-01-02T15:04:05.000Z"),
		strconv.FormatUint(in.Requests, 10),
		fmt.Sprintf("%.2f", in.Rate), fmt.Sprintf("%.2f", in.Throughput), fmt.Sprintf("%.2f%%", in.Success*100),
		d(l.Min), d(l.Mean), d(l.P50), d(l.P90), d(l.P95), d(l.P99), d(l.Max),
		strconv.FormatUint(in.Lag.Late, 10), strconv.FormatUint(in.Dropped, 10), strconv.FormatUint(errs, 10),
		covered,
	})
}

func (t *intervalTable) close(stragglers uint64) error {
	if t.partial {
		if _, err := fmt.Fprintln(t.w, "(partial: the run started or ended inside that interval and covered only the time shown; its Rate and Throughput are per second of that time)"); err != nil {
			return err
		}
	}
	if stragglers > 0 {
		_, err := fmt.Fprintf(t.w, "(%d results arrived more than %d intervals after they were sent and are only in the whole-run figures)\n",
			stragglers, metrics.MaxOpenIntervals)
		return err
	}
	return nil
}

// writeIntervalJSON writes one interval as one JSON line: the JSON report's
// keys plus interval_start, interval_end and, for a partial interval,
// partial and interval_covered.
func writeIntervalJSON(w io.Writer, in *metrics.Interval) error {
	j := toJSON(in.Metrics, nil)
	j.IntervalStart, j.IntervalEnd = &in.Start, &in.End
	if in.Partial {
		j.Partial, j.IntervalCovered = true, in.Covered
	}
	return json.NewEncoder(w).Encode(j)
}
