package trend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/changepoint"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/verdict"
)

// group is one build: the points [from, to) sharing a value of By (each
// run its own group when By is empty).
type group struct {
	label    string
	from, to int
}

// judge judges candidate changes and the newest build with package
// verdict, over the runs of the builds on each side.
type judge struct {
	ctx    context.Context
	src    Source
	o      Options
	points []Point
	health []*runblock.Health
	// typical is the latency p99 the series' runs typically measured
	// (runblock.TypicalP99): each run's lag is weighed against it too.
	typical time.Duration
	reqs    []uint64
	groups  []group
	// search are the groups the change points are searched among: the
	// builds with a clean run (all of them when fewer than two are), so
	// that a change is never placed at a build the machine disturbed.
	search []int
	runs   []*verdict.Run // per point, loaded on first use
	judged map[[4]int]*verdict.Verdict
	err    error
}

func newJudge(ctx context.Context, src Source, o Options, ps []Point, health []*runblock.Health, reqs []uint64) *judge {
	j := &judge{ctx: ctx, src: src, o: o, points: ps, health: health, reqs: reqs, runs: make([]*verdict.Run, len(ps)), judged: map[[4]int]*verdict.Verdict{}}
	for i, p := range ps {
		if o.By != "" && i > 0 && p.Label == ps[i-1].Label {
			j.groups[len(j.groups)-1].to = i + 1
			continue
		}
		j.groups = append(j.groups, group{label: p.Label, from: i, to: i + 1})
	}
	return j
}

// vopt is the verdict's options for the trend's.
func (j *judge) vopt() verdict.Options {
	s := verdict.Stat(j.o.Metric)
	vo := verdict.Options{Stat: s, MinChange: j.o.MinChange, NoiseFloor: j.o.NoiseFloor, Seed: j.o.Seed, TypicalP99: j.typical}
	if s.Points() && vo.MinChange > 0 {
		vo.MinChange *= 100 // a fraction of the requests, in points
	}
	if vo.MinChange == 0 {
		vo.MinChange = verdict.DefaultMinChange
		if s.Points() {
			vo.MinChange = verdict.DefaultMinPoints
		}
	}
	return vo
}

// levels is the series the change points are searched in: the level of
// each build of j.search, the geometric mean of its clean runs' figures
// (of all its runs when none is clean), the mean for success.
func (j *judge) levels() []float64 {
	j.search = j.search[:0]
	for g, gr := range j.groups {
		for i := gr.from; i < gr.to; i++ {
			if j.points[i].Noisy == "" {
				j.search = append(j.search, g)
				break
			}
		}
	}
	if len(j.search) < 2 {
		j.search = j.search[:0]
		for g := range j.groups {
			j.search = append(j.search, g)
		}
	}
	xs := make([]float64, len(j.search))
	for k, g := range j.search {
		gr := j.groups[g]
		var all, clean []float64
		for i := gr.from; i < gr.to; i++ {
			v := float64(j.points[i].Value)
			all = append(all, v)
			if j.points[i].Noisy == "" {
				clean = append(clean, v)
			}
		}
		if len(clean) == 0 {
			clean = all
		}
		xs[k] = level(clean, j.o.Metric != Success)
	}
	return xs
}

// group is the build of index k of the searched series; len(j.search)
// is the end of the builds.
func (j *judge) group(k int) int {
	if k >= len(j.search) {
		return len(j.groups)
	}
	return j.search[k]
}

func level(xs []float64, geometric bool) float64 {
	var s float64
	for _, x := range xs {
		if geometric {
			if x <= 0 {
				return level(xs, false)
			}
			x = math.Log(x)
		}
		s += x
	}
	s /= float64(len(xs))
	if geometric {
		return math.Exp(s)
	}
	return s
}

// run is point i as the verdict reads it: its figure, health and (from
// a BlockSource) time blocks, prepared once.
func (j *judge) run(i int) (verdict.Run, error) {
	if r := j.runs[i]; r != nil {
		return *r, nil
	}
	p := j.points[i]
	r := &verdict.Run{ID: p.ID, Value: float64(p.Value), Health: j.health[i], Requests: j.reqs[i]}
	if bs, ok := j.src.(BlockSource); ok {
		full, err := j.src.Get(j.ctx, p.ID)
		if err != nil {
			return *r, err
		}
		for _, st := range full.Steps {
			if j.o.Scenario != "" && st.Scenario != j.o.Scenario {
				continue
			}
			b, err := bs.Blocks(j.ctx, p.ID, st.Index, st.Scenario)
			if errors.Is(err, archive.ErrNotFound) {
				r.Blocks = nil // archived without blocks: its run-level figure alone
				break
			}
			if err != nil {
				return *r, fmt.Errorf("run %s step %d: %w", p.ID, st.Index, err)
			}
			r.Blocks = append(r.Blocks, b...)
		}
	}
	if err := r.Prepare(verdict.Stat(j.o.Metric), j.o.Seed); err != nil {
		return *r, fmt.Errorf("run %s: %w", p.ID, err)
	}
	j.runs[i] = r
	return *r, nil
}

// runsOf returns the runs of groups [from, to).
func (j *judge) runsOf(from, to int) ([]verdict.Run, error) {
	var out []verdict.Run
	for g := from; g < to; g++ {
		for i := j.groups[g].from; i < j.groups[g].to; i++ {
			r, err := j.run(i)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// replicates are the figures of the builds with two clean runs or more
// outside groups [from, to): their spread joins the run-to-run variance.
func (j *judge) replicates(from, to int) [][]float64 {
	var out [][]float64
	for g, gr := range j.groups {
		if g >= from && g < to || gr.to-gr.from < 2 {
			continue
		}
		var xs []float64
		for i := gr.from; i < gr.to; i++ {
			if j.points[i].Noisy == "" {
				xs = append(xs, float64(j.points[i].Value))
			}
		}
		if len(xs) >= 2 {
			out = append(out, xs)
		}
	}
	return out
}

// compare judges groups [after, end) against [start, after). A
// candidate (searched for as the best split of its stretch, not fixed in
// advance) is judged at a confidence raised for the splits it was chosen
// among (Bonferroni): 99% over the stretch's splits, so that picking the
// most extreme split of a flat series does not make a false alarm.
func (j *judge) compare(start, after, end, splits int) (*verdict.Verdict, error) {
	key := [4]int{start, after, end, splits}
	if v, ok := j.judged[key]; ok {
		return v, nil
	}
	before, err := j.runsOf(start, after)
	if err != nil {
		return nil, err
	}
	newer, err := j.runsOf(after, end)
	if err != nil {
		return nil, err
	}
	vo := j.vopt()
	vo.Replicates = j.replicates(start, end)
	vo.Confidence = 1 - (1-Confidence)/float64(splits)
	v, err := verdict.Judge(before, newer, vo)
	if err != nil {
		return nil, err
	}
	j.judged[key] = &v
	return &v, nil
}

// judge is the changepoint.Judge: a candidate is a change when the
// verdict says worse or better, undecided when it cannot tell.
func (j *judge) judge(c *changepoint.Change) changepoint.Outcome {
	if j.err != nil {
		return changepoint.CannotTell
	}
	v, err := j.compare(j.group(c.Start), j.group(c.Index), j.group(c.End), max(c.End-c.Start-1, 1))
	if err != nil {
		j.err = err
		return changepoint.CannotTell
	}
	c.Before, c.After, c.P = v.Before, v.After, c.SeriesP
	c.Rel, c.Lo, c.Hi = relative(v)
	switch v.Outcome {
	case verdict.Worse, verdict.Better:
		return changepoint.Changed
	case verdict.CannotTell:
		return changepoint.CannotTell
	}
	return changepoint.NoChange
}

// relative is the verdict's change and interval as ratios − 1 (a rate's
// points divided by its level before).
func relative(v *verdict.Verdict) (rel, lo, hi float64) {
	if v.Relative {
		return v.Change, v.Lo, v.Hi
	}
	return v.Change / v.Before, v.Lo / v.Before, v.Hi / v.Before
}

// verdictOf is the verdict behind a change Detect returned.
func (j *judge) verdictOf(c changepoint.Change) *verdict.Verdict {
	return j.judged[[4]int{j.group(c.Start), j.group(c.Index), j.group(c.End), max(c.End-c.Start-1, 1)}]
}

// healthOf is a run's health as the archive keeps it (schema v4 on:
// archive.Point.Health, with the generator's CPU and the machine's
// steal); of a run archived before, the part its figures hold: its own
// schedule lag p99 over its latency p99 (both from the due time). Nil
// when neither was measured.
func healthOf(p *archive.Point) *runblock.Health {
	f := &p.Figures
	h := p.Health
	if h.LagP99 <= 0 && f.LagP99 > 0 && f.Latencies.P99 > 0 {
		// the lag the figures hold (a run stored without its health)
		lag := runblock.LagHealth(h.LagP50, f.LagP99, f.Latencies.P99)
		if !h.Known() {
			h = lag
		} else {
			h.LagP99, h.Noise = lag.LagP99, lag.Noise
		}
	}
	if !h.Known() {
		return nil
	}
	return &h
}
