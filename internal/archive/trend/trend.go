package trend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/changepoint"
	"github.com/loadlab/loadlab/internal/compare"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// Confidence is the level of the interval a change's size must exclude
// zero from to be reported, and of the interval reported: 99%, so that one
// alarm in a hundred at most is noise, before the minimum size cuts more.
const Confidence = 0.99

// Source is what a trend reads from the archive; archive.Store is one.
type Source interface {
	Points(ctx context.Context, f archive.Filter, scenario string) ([]archive.Point, error)
	Get(ctx context.Context, id string) (*archive.Run, error)
	Histogram(ctx context.Context, id string, step int, scenario string) ([]byte, error)
	// Blocks is a step's scenario in time blocks (nil for a run archived
	// before the archive kept them).
	Blocks(ctx context.Context, id string, step int, scenario string) ([]runblock.Block, error)
}

// Options say which trend to compute.
type Options struct {
	Metric   Metric
	By       string            // label ordering the runs; "": start time
	Scenario string            // one scenario's figures; "": each run's
	Labels   map[string]string // runs must carry every one
	// MinChange is the smallest relative size reported: 0 means 5%, a
	// negative value any significant change.
	MinChange float64
	Seed      uint64 // seeds the permutation test and the bootstrap
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
	// and Noisy whether a verdict should not rest on it (Health.Judge).
	Health runblock.Health `json:"health"`
	Noisy  bool            `json:"noisy,omitempty"`
}

// Change is a change point of the series.
type Change struct {
	Index  int    `json:"index"` // the first point after the change
	ID     string `json:"id"`    // that run's ID
	Label  string `json:"label"` // its value of Options.By ("" without)
	Before Number `json:"before"`
	After  Number `json:"after"`
	// Rel is the relative size After/Before − 1, and CI its confidence
	// interval (at Confidence when Pooled, 95% otherwise).
	Rel Number    `json:"change"`
	CI  [2]Number `json:"ci"`
	P   Number    `json:"p_value"`
	// SeriesP is the t-test's p-value over the runs' figures (package
	// changepoint); nil when the sides have two runs in all.
	SeriesP Number `json:"series_p_value"`
	// Pooled says Before, After and CI come from the runs' pooled
	// distributions (compare's bootstrap), not from the figures' means.
	Pooled bool `json:"pooled"`
	Worse  bool `json:"worse"` // the figure got worse: a regression
	// Runs before and after the change that were judged.
	RunsBefore int `json:"runs_before"`
	RunsAfter  int `json:"runs_after"`
}

// Trend is one metric across runs with its change points.
type Trend struct {
	Metric   Metric   `json:"metric"`
	Unit     string   `json:"unit"`
	By       string   `json:"by,omitempty"`
	Scenario string   `json:"scenario,omitempty"`
	Method   string   `json:"method"`
	Points   []Point  `json:"points"`
	Changes  []Change `json:"changes"`
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

// Compute reads the runs the options select and finds the changes of the
// metric across them.
func Compute(ctx context.Context, src Source, o Options) (*Trend, error) {
	if _, err := ParseMetric(string(o.Metric)); err != nil {
		return nil, err
	}
	aps, err := src.Points(ctx, archive.Filter{Labels: o.Labels, Sort: "started", Asc: true}, o.Scenario)
	if err != nil {
		return nil, err
	}
	t := &Trend{Metric: o.Metric, Unit: o.Metric.Unit(), By: o.By, Scenario: o.Scenario, Points: []Point{}, Changes: []Change{}}
	for i := range aps {
		ap := &aps[i]
		p := Point{ID: ap.ID, Slug: ap.Slug, Name: ap.Name, Started: ap.Started, Value: Number(o.Metric.value(&ap.Figures)), Health: ap.Health}
		p.Noisy, _ = ap.Health.Judge()
		if o.By != "" {
			v, ok := ap.Labels[o.By]
			if !ok {
				continue // not labelled: not in this series
			}
			p.Label = v
		}
		if !p.Value.finite() {
			continue
		}
		t.Points = append(t.Points, p)
	}
	order(t.Points, o.By)
	xs := make([]float64, len(t.Points))
	for i, p := range t.Points {
		xs[i] = float64(p.Value)
	}
	j := &judge{ctx: ctx, src: src, o: o, points: t.Points, pooled: map[string]*pooled{}, fallback: map[int]bool{}}
	copt := changepoint.Options{MinChange: o.MinChange, Log: o.Metric != Success}
	if _, ok := o.Metric.stat(); ok {
		copt.Judge = j.judge
	}
	t.Method = method(o.Metric, copt)
	cps := changepoint.Detect(xs, copt)
	if j.err != nil {
		return nil, j.err
	}
	for _, c := range cps {
		p := &t.Points[c.Index]
		p.Change = true
		ch := Change{Index: c.Index, ID: p.ID, Label: p.Label, Before: Number(c.Before), After: Number(c.After), Rel: Number(c.Rel),
			CI: [2]Number{Number(c.Lo), Number(c.Hi)}, P: Number(c.P), SeriesP: Number(c.SeriesP),
			Pooled: copt.Judge != nil && !j.fallback[c.Index], RunsBefore: c.Index - c.Start, RunsAfter: c.End - c.Index}
		ch.Worse = c.Rel > 0 == o.Metric.HigherIsWorse()
		t.Changes = append(t.Changes, ch)
	}
	return t, nil
}

func method(m Metric, o changepoint.Options) string {
	s := fmt.Sprintf("E-divisive means over the runs' figures (log scale), each candidate judged by Student's t-test between its sides at %.3g%% (as Apache Otava)", 100*changepoint.DefaultAlpha)
	if m == Success {
		s = fmt.Sprintf("E-divisive means over the runs' figures, each candidate judged by Student's t-test between its sides at %.3g%% (as Apache Otava)", 100*changepoint.DefaultAlpha)
	}
	if o.Judge != nil {
		s += "; each candidate checked against the runs' pooled distributions with compare's bootstrap (99% interval)"
	}
	least := o.MinChange
	if least == 0 {
		least = changepoint.DefaultMinChange
	}
	if least > 0 {
		s += fmt.Sprintf("; changes smaller than %.3g%% are not reported", 100*least)
	}
	return s
}

// pooled is one run's distribution: its histogram (the steps of the
// scenario merged) and request counts.
type pooled struct {
	h             *hdrhistogram.Histogram
	requests, oks uint64
}

// judge checks candidate changes against the runs' stored histograms.
type judge struct {
	ctx    context.Context
	src    Source
	o      Options
	points []Point
	pooled map[string]*pooled
	// fallback marks the candidates judged on the series alone: a run
	// had no stored histogram.
	fallback map[int]bool
	err      error
}

func (j *judge) run(id string) (*pooled, error) {
	if p, ok := j.pooled[id]; ok {
		return p, nil
	}
	r, err := j.src.Get(j.ctx, id)
	if err != nil {
		return nil, err
	}
	p := &pooled{h: metrics.NewHistogram()}
	for _, st := range r.Steps {
		if j.o.Scenario != "" && st.Scenario != j.o.Scenario {
			continue
		}
		b, err := j.src.Histogram(j.ctx, id, st.Index, st.Scenario)
		if err != nil {
			return nil, fmt.Errorf("run %s step %d: %w", id, st.Index, err)
		}
		h, err := hdrhistogram.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("run %s step %d: histogram: %w", id, st.Index, err)
		}
		p.h.Merge(h)
		p.requests += st.Requests
		p.oks += uint64(math.Round(st.Success * float64(st.Requests)))
	}
	j.pooled[id] = p
	return p, nil
}

// side pools the runs of points [from, to).
func (j *judge) side(name string, from, to int) (*compare.Run, error) {
	h := metrics.NewHistogram()
	var req, ok uint64
	for _, p := range j.points[from:to] {
		r, err := j.run(p.ID)
		if err != nil {
			return nil, err
		}
		h.Merge(r.h)
		req += r.requests
		ok += r.oks
	}
	return compare.NewRunFromHistogram(name, h, req, ok), nil
}

// judge is the changepoint.Judge: compare's bootstrap on the pooled runs
// before and after.
func (j *judge) judge(c *changepoint.Change) changepoint.Outcome {
	if j.err != nil {
		return changepoint.NoChange
	}
	stat, _ := j.o.Metric.stat()
	before, err := j.side("before", c.Start, c.Index)
	if err == nil {
		var after *compare.Run
		after, err = j.side("after", c.Index, c.End)
		if err == nil {
			// The size first: the pooled figures cost a merge, the
			// bootstrap a thousand resamples.
			b, a := compare.Point(before, stat), compare.Point(after, stat)
			if r := a/b - 1; j.minChange() > 0 && !(math.Abs(r) >= j.minChange()) {
				c.Before, c.After, c.Rel, c.Lo, c.Hi = b, a, r, math.NaN(), math.NaN()
				return changepoint.NoChange
			}
			row := compare.CompareStat(before, after, stat, compare.Options{Seed: j.o.Seed, Confidence: Confidence})
			c.Before, c.After, c.Rel, c.P = row.Base, row.Value, row.Rel, row.P
			c.Lo, c.Hi = row.Lo/row.Base, row.Hi/row.Base
			switch row.Verdict {
			case compare.NoDiff:
				return changepoint.NoChange
			case compare.NoData, compare.TooFew:
				return changepoint.CannotTell
			}
			return changepoint.Changed
		}
	}
	if errors.Is(err, archive.ErrNotFound) {
		j.fallback[c.Index] = true
		return c.Outcome // the series alone: the t-test's verdict
	}
	j.err = err
	return changepoint.NoChange
}

// minChange is the minimum relative size, as changepoint applies it.
func (j *judge) minChange() float64 {
	if j.o.MinChange == 0 {
		return changepoint.DefaultMinChange
	}
	return j.o.MinChange
}
