package trend

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/changepoint"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/verdict"
)

// Confidence is the level of the interval a change's size must exclude
// zero from to be reported, and of the interval reported: 99%, so that one
// alarm in a hundred at most is noise, before the minimum size cuts more.
const Confidence = 0.99

// Source is what a trend reads from the archive; archive.Reader (and so archive.Store) is one.
// A Source that is also a BlockSource gives each run's time blocks (its
// within-run spread), and an archive.AcceptanceReader its accepted baselines.
type Source interface {
	Points(ctx context.Context, f archive.Filter, scenario string) ([]archive.Point, error)
	Get(ctx context.Context, id string) (*archive.Run, error)
}

// BlockSource is a Source that keeps runs' time blocks (package
// runblock), as the archive does from schema v4 on. Runs archived without
// blocks (ErrNotFound) are judged from their run-level figures alone.
type BlockSource interface {
	Blocks(ctx context.Context, id string, step int, scenario string) ([]runblock.Block, error)
}

// Options say which trend to compute.
type Options struct {
	Metric   Metric
	By       string            // label ordering the runs; "": start time
	Scenario string            // one scenario's figures; "": each run's
	Labels   map[string]string // runs must carry every one
	// MinChange is the smallest change reported and gated on: relative for
	// latencies and throughput (0 means 5%), a fraction of the requests for
	// success (0 means 0.01: one point); negative, any change the interval
	// shows.
	MinChange float64
	// NoiseFloor takes the smallest change from the run-to-run spread of
	// the replicates (runs sharing a value of By) instead of MinChange.
	NoiseFloor bool
	// Since starts the series at the first run whose By value is Since;
	// Last keeps its last Last values of By (runs when By is empty).
	Since string
	Last  int
	Seed  uint64 // seeds the permutation test and the block bootstrap
}

// Point is one run in the series.
type Point struct {
	ID      string    `json:"id"`
	Slug    string    `json:"slug"`
	Name    string    `json:"name"`
	Label   string    `json:"label,omitempty"` // the run's value of Options.By
	Started time.Time `json:"started"`
	Value   Number    `json:"value"`  // the metric, in Unit
	Change  bool      `json:"change"` // a change point: the first run after a change
	// Health is what the machine did to the run (archive.Point.Health),
	// and Noisy why a verdict does not rest on it (Health.Judge): its own
	// schedule lag was a visible share of what it measured, or the
	// machine was not its own.
	Health runblock.Health `json:"health"`
	Noisy  string          `json:"noisy,omitempty"`
	// Accepted marks a run whose level was accepted (archive accept).
	Accepted bool `json:"accepted,omitempty"`
}

// Change is a change point of the series.
type Change struct {
	Index  int    `json:"index"` // the first point after the change
	ID     string `json:"id"`    // that run's ID
	Label  string `json:"label"` // its value of Options.By ("" without)
	Before Number `json:"before"`
	After  Number `json:"after"`
	// Rel is the relative size After/Before − 1, and CI its interval at
	// Confidence (Verdict has a rate's change in points).
	Rel Number    `json:"change"`
	CI  [2]Number `json:"ci"`
	P   Number    `json:"p_value"` // the permutation test's, when it decided; null otherwise
	// SeriesP is the permutation test's p-value over the builds' levels;
	// null when the series is too short for it to decide.
	SeriesP Number           `json:"series_p_value"`
	Worse   bool             `json:"worse"` // the figure got worse: a regression
	Verdict *verdict.Verdict `json:"verdict"`
	// Runs before and after the change that were judged.
	RunsBefore int `json:"runs_before"`
	RunsAfter  int `json:"runs_after"`
}

// Trend is one metric across runs with its change points and the gate's
// verdict on the newest build.
type Trend struct {
	Metric   Metric   `json:"metric"`
	Unit     string   `json:"unit"`
	By       string   `json:"by,omitempty"`
	Scenario string   `json:"scenario,omitempty"`
	Method   string   `json:"method"`
	Points   []Point  `json:"points"`
	Changes  []Change `json:"changes"`
	Gate     *Gate    `json:"gate"`
	// Accepted are the acceptances of runs in the series.
	Accepted []archive.Acceptance `json:"accepted"`

	matched   int      // runs the label and scenario filters selected
	labelKeys []string // the labels those runs carry
}

// Regressions returns the changes that made the figure worse.
func (t *Trend) Regressions() []Change {
	var out []Change
	for _, c := range t.Changes {
		if c.Worse {
			out = append(out, c)
		}
	}
	return out
}

// Nothing says, as a *badinput.Error naming the flag, why the series is
// empty (no run matches the filters, none carries the By label); nil when
// it is not.
func (t *Trend) Nothing() error {
	switch {
	case len(t.Points) > 0:
		return nil
	case t.matched == 0 && t.Scenario != "":
		return badinput.Field("-scenario", "no run of the archive matching the filters has a scenario %q", t.Scenario)
	case t.matched == 0:
		return badinput.Field("-label", "no run of the archive matches (is the archive empty, or a -label misspelt?)")
	case t.By != "":
		keys := "none"
		if len(t.labelKeys) > 0 {
			keys = strings.Join(t.labelKeys, ", ")
		}
		return badinput.Field("-by", "no run is labelled %q (the runs' labels: %s)", t.By, keys)
	}
	return badinput.Field("-metric", "no run has a %s figure", t.Metric)
}

// Compute reads the runs the options select and finds the changes of the
// metric across them, and the gate's verdict on the newest build.
func Compute(ctx context.Context, src Source, o Options) (*Trend, error) {
	if _, err := ParseMetric(string(o.Metric)); err != nil {
		return nil, err
	}
	if o.Last < 0 {
		return nil, badinput.Field("-last", "%d: want a number of builds, 1 or more", o.Last)
	}
	aps, err := src.Points(ctx, archive.Filter{Labels: o.Labels, Sort: "started", Asc: true}, o.Scenario)
	if err != nil {
		return nil, err
	}
	t := &Trend{Metric: o.Metric, Unit: o.Metric.Unit(), By: o.By, Scenario: o.Scenario, Points: []Point{}, Changes: []Change{},
		Accepted: []archive.Acceptance{}, matched: len(aps)}
	keys := map[string]bool{}
	var health []*runblock.Health
	var reqs []uint64
	byID := map[string]*archive.Point{}
	for i := range aps {
		ap := &aps[i]
		for k := range ap.Labels {
			keys[k] = true
		}
		p := Point{ID: ap.ID, Slug: ap.Slug, Name: ap.Name, Started: ap.Started, Value: Number(o.Metric.value(&ap.Figures))}
		if o.By != "" {
			v, ok := ap.Labels[o.By]
			if !ok {
				continue // not labelled: not in this series
			}
			p.Label = v
		}
		if !p.Value.Finite() {
			continue
		}
		byID[ap.ID] = ap
		t.Points = append(t.Points, p)
	}
	for k := range keys {
		t.labelKeys = append(t.labelKeys, k)
	}
	sort.Strings(t.labelKeys)
	order(t.Points, o.By)
	if t.Points, err = window(t.Points, o); err != nil {
		return nil, err
	}
	for i := range t.Points {
		ap := byID[t.Points[i].ID]
		t.Points[i].Health = ap.Health
		health, reqs = append(health, healthOf(ap)), append(reqs, ap.Figures.Requests)
	}
	// A run's lag is weighed against its own p99 and against the p99 the
	// series' runs typically measured: a machine that stalled the target
	// too inflated the run's own p99 with the same delays.
	typical := runblock.TypicalP99(health)
	for i, h := range health {
		if h != nil {
			if bad, why := h.JudgeAmong(typical); bad {
				t.Points[i].Noisy = why
			}
		}
	}
	if acc, ok := src.(archive.AcceptanceReader); ok {
		all, err := acc.Accepted(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range all {
			for i := range t.Points {
				if t.Points[i].ID == a.RunID {
					t.Points[i].Accepted = true
					t.Accepted = append(t.Accepted, a)
				}
			}
		}
	}
	j := newJudge(ctx, src, o, t.Points, health, reqs)
	j.typical = typical
	xs := j.levels()
	copt := changepoint.Options{MinChange: -1, Log: o.Metric != Success, Judge: j.judge}
	t.Method = method(o, j.vopt())
	cps := changepoint.Detect(xs, copt)
	if j.err != nil {
		return nil, j.err
	}
	for _, c := range cps {
		v := j.verdictOf(c)
		g := j.groups[j.group(c.Index)]
		p := &t.Points[g.from]
		p.Change = true
		ch := Change{Index: g.from, ID: p.ID, Label: p.Label, Before: Number(c.Before), After: Number(c.After), Rel: Number(c.Rel),
			CI: [2]Number{Number(c.Lo), Number(c.Hi)}, P: Number(c.SeriesP), SeriesP: Number(c.SeriesP), Verdict: v}
		if v != nil {
			ch.Worse = v.Outcome == verdict.Worse
			ch.RunsBefore, ch.RunsAfter = v.RunsBefore, v.RunsAfter
		}
		t.Changes = append(t.Changes, ch)
	}
	if t.Gate, err = j.gate(t); err != nil {
		return nil, err
	}
	return t, nil
}

func method(o Options, vo verdict.Options) string {
	least := verdict.Size(vo.Stat, vo.MinChange, false)
	if vo.MinChange <= 0 && o.MinChange < 0 {
		least = "any size"
	}
	s := "each build's runs (replicates: the runs sharing its value of the label) judged as runs, not requests: "
	s += "E-divisive means over the builds' levels (log scale) finds candidate changes, Student's t-test between their sides deciding (as Apache Otava; package changepoint); "
	if o.Metric == Success {
		s = strings.Replace(s, " (log scale)", "", 1)
	}
	s += "each candidate, and the newest build against the level since the last improvement or accepted baseline (a regression not accepted keeps failing), is judged by a Student t interval (99%) over the runs' figures, "
	s += "their run-to-run variance pooled from the replicates and the residuals around each level, each run's at least its within-run variance (a block bootstrap over its time blocks, when archived); "
	s += "a change is reported when the interval excludes zero and its size is at least " + least
	if o.NoiseFloor {
		s += " (or the replicates' noise floor)"
	}
	s += "; noisy runs (the generator's own schedule lag p99 over 10% of the latency p99 it measured, or of the one the series' runs typically measured) are left out while clean runs remain (see package verdict)"
	return s
}
