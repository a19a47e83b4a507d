package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/loadlab/loadlab/internal/metrics"
)

// vegetaText is vegeta's text report, field for field.
const vegetaText = "Requests\t[total, rate, throughput]\t%d, %.2f, %.2f\n" +
	"Duration\t[total, attack, wait]\t%s, %s, %s\n" +
	"Latencies\t[min, mean, 50, 90, 95, 99, max]\t%s, %s, %s, %s, %s, %s, %s\n" +
	"Bytes In\t[total, mean]\t%d, %.2f\n" +
	"Bytes Out\t[total, mean]\t%d, %.2f\n" +
	"Success\t[ratio]\t%.2f%%\n" +
	"Status Codes\t[code:count]\t"

func newTabWriter(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.StripEscape)
}

// WriteText writes m (closed) in vegeta's text layout, then loadlab's
// additions: latencies from the other basis (the send time by default) when
// they differ, schedule lag, dropped requests, errors beyond the kept set,
// a note when the generator's lag is a visible share of the latency
// (LagNote), and the breakdowns that have more than one group.
func WriteText(w io.Writer, m *metrics.Metrics) error { return writeText(w, m, nil) }

// writeText is WriteText saying which inputs had due times when some had
// none.
func writeText(w io.Writer, m *metrics.Metrics, bases []InputBasis) error {
	if err := writeVegetaText(w, m); err != nil {
		return err
	}
	return writeAdditions(w, m, bases)
}

// basisNote is the line under the additions saying what the two latency
// lines measure, and for a merge of files with and without due times,
// which files had them.
func basisNote(m *metrics.Metrics, bases []InputBasis) string {
	late := fmt.Sprintf("Late: sent over %s after due.", metrics.DefaultLateAfter)
	if m.Basis() == metrics.FromSend {
		return "(Latencies run from the send time, as vegeta measures them (-basis send); Due Latencies from the due time. " + late + ")"
	}
	if due, send := mixedBases(bases); due != nil {
		return fmt.Sprintf("(Latencies run from the due time for %s; %s %s no due times, so its latencies run from the send time. "+
			"Send Latencies run from the send time for every input. %s)",
			strings.Join(due, ", "), strings.Join(send, ", "), map[bool]string{true: "have", false: "has"}[len(send) > 1], late)
	}
	return "(Latencies run from the due time; Send Latencies from the send time, as vegeta measures them. " + late + ")"
}

func writeVegetaText(w io.Writer, m *metrics.Metrics) error {
	tw := newTabWriter(w)
	l := &m.Latencies
	if _, err := fmt.Fprintf(tw, vegetaText,
		m.Requests, m.Rate, m.Throughput,
		Round(m.Duration+m.Wait), Round(m.Duration), Round(m.Wait),
		Round(l.Min), Round(l.Mean), Round(l.P50), Round(l.P90), Round(l.P95), Round(l.P99), Round(l.Max),
		m.BytesIn.Total, m.BytesIn.Mean,
		m.BytesOut.Total, m.BytesOut.Mean,
		m.Success*100,
	); err != nil {
		return err
	}
	// vegeta keys its codes by string and sorts them as strings
	codes := make([]string, 0, len(m.StatusCodes))
	for c := range m.StatusCodes {
		codes = append(codes, strconv.Itoa(int(c)))
	}
	sort.Strings(codes)
	for _, c := range codes {
		n, _ := strconv.Atoi(c)
		if _, err := fmt.Fprintf(tw, "%s:%d  ", c, m.StatusCodes[uint16(n)]); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(tw, "\nError Set:"); err != nil {
		return err
	}
	for _, e := range m.Errors {
		if _, err := fmt.Fprintln(tw, e.Text); err != nil {
			return err
		}
	}
	return tw.Flush()
}

func writeAdditions(w io.Writer, m *metrics.Metrics, bases []InputBasis) error {
	tw := newTabWriter(w)
	wrote := false
	line := func(format string, args ...any) {
		if !wrote {
			fmt.Fprintln(tw)
			wrote = true
		}
		fmt.Fprintf(tw, format, args...)
	}
	if m.ErrorsOmitted > 0 {
		line("Errors Omitted\t[count]\t%d results with errors beyond the %d distinct ones listed\n", m.ErrorsOmitted, len(m.Errors))
	}
	if m.DueDiffers() {
		s := &m.OtherLatencies
		line("%s Latencies\t[min, mean, 50, 90, 95, 99, max]\t%s, %s, %s, %s, %s, %s, %s\n",
			map[metrics.Basis]string{metrics.FromDue: "Due", metrics.FromSend: "Send"}[m.Basis().Other()], Round(s.Min), Round(s.Mean), Round(s.P50), Round(s.P90), Round(s.P95), Round(s.P99), Round(s.Max))
		line("Schedule Lag\t[late, mean, 99, max]\t%d, %s, %s, %s\n", m.Lag.Late, Round(m.Lag.Mean), Round(m.Lag.P99), Round(m.Lag.Max))
	}
	if m.Dropped > 0 {
		line("Dropped\t[total, ratio]\t%d, %.2f%%\n", m.Dropped, 100*float64(m.Dropped)/float64(m.Requests))
	}
	if a := m.Accounting; a.Known() || a != nil && a.NeverRecorded > 0 {
		verdict := "every scheduled request recorded once"
		if a.Missing > 0 || a.Twice > 0 {
			verdict = fmt.Sprintf("%d scheduled requests missing, %d recorded twice", a.Missing, a.Twice)
		}
		if a.NeverRecorded > 0 {
			// the plan is in the header: a stream ending before its end is
			// of an attack that did not finish, whatever came before
			before := verdict
			verdict = fmt.Sprintf("the attack did not finish: %d of the %d planned requests were never recorded (killed, interrupted, out of targets, or the file was cut short)",
				a.NeverRecorded, a.PlannedTotal())
			if a.Scheduled > 0 {
				verdict += "; before that, " + before
			}
		}
		if a.Sessions {
			verdict = strings.NewReplacer("requests", "sessions", "request", "session").Replace(verdict)
			line("Accounting\t[scheduled sessions, requests sent, dropped sessions]\t%d, %d, %d (%s)\n", a.Scheduled, m.Requests-m.Dropped, m.Dropped, verdict)
		} else {
			line("Accounting\t[scheduled, sent, dropped]\t%d, %d, %d (%s)\n", a.Scheduled, m.Requests-m.Dropped, m.Dropped, verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if m.DueDiffers() {
		fmt.Fprintln(w, basisNote(m, bases))
	}
	if note := LagNote(m.Lag.P50, m.Latencies.P50); note != "" {
		fmt.Fprintln(w, "Note: "+note+".")
	}
	if b := m.Breakdown(); b != nil {
		for _, t := range []struct {
			title  string
			groups []*metrics.Group
		}{{"Attack", b.ByAttack()}, {"Target", b.ByTarget()}, {"Step", b.ByStep()}} {
			if len(t.groups) < 2 {
				continue
			}
			if err := writeGroups(w, t.title, t.groups); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeGroups prints one breakdown table.
func writeGroups(w io.Writer, title string, gs []*metrics.Group) error {
	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "%s\tRequests\tRate\tSuccess\tmin\tmean\t50\t90\t99\tmax\tErrors\n", title)
	for _, g := range gs {
		m := g.Metrics
		l := &m.Latencies
		var errs uint64
		for _, e := range m.Errors {
			errs += e.Count
		}
		errs += m.ErrorsOmitted
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f%%\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n",
			g.Key, m.Requests, m.Rate, m.Success*100,
			Round(l.Min), Round(l.Mean), Round(l.P50), Round(l.P90), Round(l.P99), Round(l.Max), errs)
	}
	return tw.Flush()
}
