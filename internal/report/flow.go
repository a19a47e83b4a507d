package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// flowStats are a flow's figures, counted from its results alone (see
// results.Result.FlowStep): its sessions and how they ended, their
// durations, its checks' passes and fails, and with -by step each step's
// own figures.
type flowStats struct {
	opts    metrics.Options
	byStep  bool
	steps   map[string]*metrics.Metrics
	order   []string // steps in first-seen order
	checks  map[string]*checkCount
	corder  []string
	ends    map[string]uint64 // outcome → sessions
	durs    []time.Duration   // durations of the sessions that started
	any     bool
	dropped uint64
}

type checkCount struct {
	step, name    string
	passes, fails uint64
}

func newFlowStats(o metrics.Options, byStep bool) *flowStats {
	return &flowStats{opts: o, byStep: byStep, steps: map[string]*metrics.Metrics{}, checks: map[string]*checkCount{}, ends: map[string]uint64{}}
}

// Add counts r (results.Sink).
func (f *flowStats) Add(r *results.Result) {
	st := r.FlowStep
	if st == nil {
		return
	}
	f.any = true
	if f.byStep {
		m := f.steps[st.Name]
		if m == nil {
			m = metrics.NewWith(f.opts)
			f.steps[st.Name] = m
			f.order = append(f.order, st.Name)
		}
		m.Add(r)
	}
	if !r.Dropped() {
		for i, name := range st.Checks {
			key := st.Name + ": " + name
			c := f.checks[key]
			if c == nil {
				c = &checkCount{step: st.Name, name: name}
				f.checks[key] = c
				f.corder = append(f.corder, key)
			}
			if r.Failed&(1<<i) != 0 {
				c.fails++
			} else {
				c.passes++
			}
		}
	}
	if out := r.Ended.Outcome; out != "" {
		f.ends[out]++
		if out == results.Dropped {
			f.dropped++
		} else {
			f.durs = append(f.durs, r.Ended.Duration)
		}
	}
}

// FlowSessions are the counts of a flow's sessions' outcomes: started
// (completed, failed, interrupted) and dropped (never started), failed
// ones by what stopped them.
type FlowSessions struct {
	Started     uint64            `json:"started"`
	Completed   uint64            `json:"completed"`
	Failed      uint64            `json:"failed"`
	Interrupted uint64            `json:"interrupted"`
	Dropped     uint64            `json:"dropped"`
	FailedBy    map[string]uint64 `json:"failed_by,omitempty"`
}

func (f *flowStats) sessions() FlowSessions {
	s := FlowSessions{Completed: f.ends[results.Completed], Interrupted: f.ends[results.Interrupted], Dropped: f.dropped}
	for out, n := range f.ends {
		if what, ok := strings.CutPrefix(out, results.FailedPrefix); ok {
			if s.FailedBy == nil {
				s.FailedBy = map[string]uint64{}
			}
			s.FailedBy[what] += n
			s.Failed += n
		}
	}
	s.Started = s.Completed + s.Failed + s.Interrupted
	return s
}

// durations are the sessions' duration percentiles (nearest rank).
func (f *flowStats) durations() jsonLatencies {
	d := append([]time.Duration(nil), f.durs...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var l jsonLatencies
	if len(d) == 0 {
		return l
	}
	q := func(p float64) time.Duration {
		i := int(p*float64(len(d))+0.999999) - 1
		return d[min(max(i, 0), len(d)-1)]
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	l.Min, l.Mean, l.P50, l.P90, l.P95, l.P99, l.Max = d[0], sum/time.Duration(len(d)), q(.5), q(.9), q(.95), q(.99), d[len(d)-1]
	return l
}

// writeText prints the flow's block, then with -by step each step's
// report in vegeta's layout.
func (f *flowStats) writeText(w io.Writer) error {
	if !f.any {
		return nil
	}
	s := f.sessions()
	l := f.durations()
	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "Sessions\t[started, completed, failed, interrupted, dropped]\t%d, %d, %d, %d, %d\n", s.Started, s.Completed, s.Failed, s.Interrupted, s.Dropped)
	fmt.Fprintf(tw, "Session Duration\t[min, mean, 50, 90, 95, 99, max]\t%s, %s, %s, %s, %s, %s, %s\n",
		Round(l.Min), Round(l.Mean), Round(l.P50), Round(l.P90), Round(l.P95), Round(l.P99), Round(l.Max))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.FailedBy) > 0 {
		fmt.Fprintln(w, "\nFailed sessions, by what stopped them:")
		tw = newTabWriter(w)
		keys := make([]string, 0, len(s.FailedBy))
		for k := range s.FailedBy {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return s.FailedBy[keys[i]] > s.FailedBy[keys[j]] || s.FailedBy[keys[i]] == s.FailedBy[keys[j]] && keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Fprintf(tw, "  %d\t%s\n", s.FailedBy[k], k)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(f.corder) > 0 {
		fmt.Fprintln(w)
		tw = newTabWriter(w)
		fmt.Fprintf(tw, "Check\tPasses\tFails\tPassed\n")
		for _, k := range f.corder {
			c := f.checks[k]
			mark := "✓"
			if c.fails > 0 {
				mark = "✗"
			}
			fmt.Fprintf(tw, "%s %s\t%d\t%d\t%.2f%%\n", mark, k, c.passes, c.fails, 100*float64(c.passes)/float64(max(c.passes+c.fails, 1)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, name := range f.order {
		m := f.steps[name]
		m.Close()
		fmt.Fprintf(w, "\nStep %s\n", name)
		if err := writeVegetaText(w, m); err != nil {
			return err
		}
	}
	return nil
}

// jsonFlow is the flow's block of the JSON report.
type jsonFlow struct {
	Sessions        FlowSessions  `json:"sessions"`
	SessionDuration jsonLatencies `json:"session_duration"`
	Checks          []jsonCheck   `json:"checks,omitempty"`
	ByStep          []jsonStep    `json:"by_flow_step,omitempty"`
}

type jsonCheck struct {
	Name   string  `json:"name"`
	Passes uint64  `json:"passes"`
	Fails  uint64  `json:"fails"`
	Ratio  float64 `json:"ratio"`
}

type jsonStep struct {
	Step   string          `json:"step"`
	Report json.RawMessage `json:"report"`
}

// json is the flow's block, nil when there were no flow results.
func (f *flowStats) json() (*jsonFlow, error) {
	if !f.any {
		return nil, nil
	}
	j := &jsonFlow{Sessions: f.sessions(), SessionDuration: f.durations()}
	for _, k := range f.corder {
		c := f.checks[k]
		j.Checks = append(j.Checks, jsonCheck{k, c.passes, c.fails, float64(c.passes) / float64(max(c.passes+c.fails, 1))})
	}
	for _, name := range f.order {
		m := f.steps[name]
		m.Close()
		raw, err := json.Marshal(toJSON(m, nil))
		if err != nil {
			return nil, err
		}
		j.ByStep = append(j.ByStep, jsonStep{name, raw})
	}
	return j, nil
}
