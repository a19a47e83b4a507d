package compare

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/metrics"
)

// This file is the run-level judgement `loadlab compare` uses (Options.
// RunLevel): each side's figures resampled by time blocks of its runs (a
// block bootstrap), and by its runs when it has replicates, so that noise
// shared by the requests of one run (a paused or busy machine) widens
// the interval instead of becoming a verdict. It is kept apart from the
// per-request bootstrap so that it can be pointed at the project's
// verdict package later.

// Run-level verdicts, beside Slower, Faster, Worse, Better, Higher and
// Lower (a difference beyond noise and the minimum change).
const (
	// NoChange: the interval rules out a change of the minimum change.
	NoChange = "no difference"
	// CannotTell: the interval is too wide to rule out the minimum change
	// either way.
	CannotTell = "cannot tell"
	// TooShort: a side has fewer than judgedBlocks time blocks.
	TooShort = "too short"
)

// Outcome sorts a verdict into "worse", "better", "no difference",
// "cannot tell" or "not judged" (too few requests, no data, too short).
func Outcome(verdict string) string {
	switch verdict {
	case Slower, Worse, Lower:
		return "worse"
	case Faster, Better, Higher:
		return "better"
	case NoChange, NoDiff:
		return NoChange
	case CannotTell:
		return CannotTell
	}
	return "not judged"
}

// Run-level defaults.
const (
	// RunLevelConfidence is the confidence of a run-level interval.
	RunLevelConfidence = 0.99
	// RunLevelResamples is how many block-bootstrap replicates a side
	// gets: enough that a verdict does not depend on the seed.
	RunLevelResamples = 4000
	// DefaultMinChange is the smallest relative change of a latency or a
	// throughput called worse or better (5%), DefaultMinPoints that of the
	// success ratio (1 percentage point).
	DefaultMinChange = 0.05
	DefaultMinPoints = 1.0
)

// Replicated returns one side made of several runs of the same thing
// (replicates): its figures are those of all their requests, and its
// intervals add the variance between the runs to that between the
// time blocks of each.
func Replicated(name string, runs []*Run) *Run {
	if len(runs) == 1 {
		return runs[0]
	}
	out := NewRun(name, runs[0].basis)
	out.Group, out.Users = runs[0].Group, runs[0].Users
	for _, r := range runs {
		out.Files = append(out.Files, r.Files...)
		out.Metrics.Merge(r.Metrics)
		out.Replicas = append(out.Replicas, r)
	}
	out.timeline = nil
	return out
}

// replicas are the runs a side's blocks come from: its replicates, or
// itself.
func (r *Run) replicas() []*Run {
	if len(r.Replicas) > 0 {
		return r.Replicas
	}
	return []*Run{r}
}

// sparse is a block's latency counts on a grid, its requests and
// successes.
type sparse struct {
	idx   []int32
	count []int64
	n, ok int64
}

// blockSide is a side cut into blocks on a shared grid of buckets.
type blockSide struct {
	grid   *buckets   // mid, top and secs of the grid; values computes from it
	runs   [][]sparse // per replicate, its blocks
	shift  [numStats]float64
	point  [numStats]float64
	seed   uint64
	blocks int // fewest blocks of a replicate
}

// gridOf is the union of the bucket tops of every block, and each top's
// position in it.
func gridOf(cut [][]*slot) (*buckets, map[int64]int32) {
	seen := map[int64]bar{}
	for _, blocks := range cut {
		for _, b := range blocks {
			for _, v := range b.bars {
				seen[v.to] = v
			}
		}
	}
	tops := make([]int64, 0, len(seen))
	for k := range seen {
		tops = append(tops, k)
	}
	sort.Slice(tops, func(i, j int) bool { return tops[i] < tops[j] })
	unit := float64(metrics.HistogramUnit) / 1e6 // ns to ms
	g := &buckets{}
	pos := make(map[int64]int32, len(tops))
	for i, k := range tops {
		g.mid = append(g.mid, float64(seen[k].from+seen[k].to)/2*unit)
		g.top = append(g.top, float64(k)*unit)
		pos[k] = int32(i)
	}
	return g, pos
}

// newBlockSide puts the blocks cut from run (each of its replicates') on
// the grid.
func newBlockSide(run *Run, grid *buckets, pos map[int64]int32, cut [][]*slot) *blockSide {
	bs := &blockSide{grid: grid, blocks: math.MaxInt}
	pooled := make([]int64, len(grid.top))
	var ok, ko int64
	h := fnv.New64a()
	var buf [8]byte
	for _, blocks := range cut {
		var sp []sparse
		for _, b := range blocks {
			s := sparse{n: b.n, ok: b.ok}
			for _, v := range b.bars { // sorted by value
				i := pos[v.to]
				s.idx = append(s.idx, i)
				s.count = append(s.count, v.count)
				pooled[i] += v.count
				binary.LittleEndian.PutUint64(buf[:], uint64(v.to)^uint64(v.count)<<20)
				h.Write(buf[:])
			}
			ok += b.ok
			ko += b.n - b.ok
			sp = append(sp, s)
		}
		bs.runs = append(bs.runs, sp)
		bs.blocks = min(bs.blocks, len(sp))
	}
	g := *grid
	g.secs = 0
	for _, r := range run.replicas() {
		g.secs += flatten(r).secs
	}
	bs.grid = &g
	bucketed := g.values(pooled, ok, ko)
	exact := flatten(run).exact
	exact[Throughput] = bucketed[Throughput]
	for s := range bs.shift {
		if d := exact[s] - bucketed[s]; !math.IsNaN(d) {
			bs.shift[s] = d
		}
	}
	bs.point = exact
	bs.seed = h.Sum64()
	return bs
}

// cutSide cuts each replicate of run into blocks of its own length
// (blockSlots of its span).
func cutSide(run *Run) [][]*slot {
	var cut [][]*slot
	for _, r := range run.replicas() {
		if r.timeline == nil {
			cut = append(cut, nil)
			continue
		}
		span := r.timeline.span()
		cut = append(cut, r.timeline.blocks(blockSlots(span), span))
	}
	return cut
}

// add adds block b's counts to counts, returning its successes and
// failures.
func (s *sparse) add(counts []int64) (ok, ko int64) {
	for j, i := range s.idx {
		counts[i] += s.count[j]
	}
	return s.ok, s.n - s.ok
}

// value is the side's statistics from counts, shifted to centre on the
// exact figures.
func (bs *blockSide) value(counts []int64, ok, ko int64) [numStats]float64 {
	v := bs.grid.values(counts, ok, ko)
	for s := range v {
		v[s] += bs.shift[s]
	}
	return v
}

// resample returns reps replicates of the side's statistics: each draws
// as many replicates as the side has, with replacement, and of each as
// many of its blocks, with replacement.
func (bs *blockSide) resample(seed uint64, reps int) [][numStats]float64 {
	rng := rand.New(rand.NewPCG(seed, bs.seed))
	out := make([][numStats]float64, reps)
	counts := make([]int64, len(bs.grid.top))
	for r := range out {
		clear(counts)
		var ok, ko int64
		for range bs.runs {
			blocks := bs.runs[0]
			if len(bs.runs) > 1 {
				blocks = bs.runs[rng.IntN(len(bs.runs))]
			}
			for range blocks {
				o, k := blocks[rng.IntN(len(blocks))].add(counts)
				ok, ko = ok+o, ko+k
			}
		}
		out[r] = bs.value(counts, ok, ko)
	}
	return out
}

// compareRunLevel is Compare with run-level intervals.
func compareRunLevel(base *Run, runs []*Run, opt Options) Report {
	rep := Report{Group: base.Group, Baseline: base.Name, Options: opt}
	rep.addRun(base)
	bcut := cutSide(base)
	for _, run := range runs {
		rep.addRun(run)
		rcut := cutSide(run)
		grid, pos := gridOf(append(append([][]*slot{}, bcut...), rcut...))
		b := newBlockSide(base, grid, pos, bcut)
		r := newBlockSide(run, grid, pos, rcut)
		bres := b.resample(opt.Seed, opt.Resamples)
		rres := r.resample(opt.Seed, opt.Resamples)
		stats := Stats
		if base.Users > 0 || run.Users > 0 {
			stats = append([]Stat{Throughput}, Stats...)
		}
		noisy := busy(base) || busy(run)
		for _, s := range stats {
			row := judgeRow(s, base, run, b, r, bres, rres, opt)
			if noisy && (Outcome(row.Verdict) == "worse" || Outcome(row.Verdict) == "better") {
				// runblock.Health.Judge: no verdict may rest on a noisy run.
				row.Verdict = CannotTell
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	rep.Notes = busyNotes(append([]*Run{base}, runs...))
	if len(rep.Notes) > 0 {
		rep.Notes = append(rep.Notes, "a difference resting on a run made on a busy machine is not called worse or better but cannot tell: compare runs of a quiet machine, repeat them, or measure both builds at once (a duet)")
	}
	return rep
}

// busy reports whether run, or one of its replicates, ran on a busy
// machine (runblock.Health.Judge).
func busy(run *Run) bool {
	for _, r := range run.replicas() {
		if noisy, _ := r.Health().Judge(); noisy {
			return true
		}
	}
	return false
}

// judgeRow judges statistic s of run against base from their points and
// replicates (paired or not: replicate i of each side).
func judgeRow(s Stat, base, run *Run, b, r *blockSide, bres, rres [][numStats]float64, opt Options) Row {
	row := Row{Run: run.Name, Stat: s, Base: b.point[s], Value: r.point[s], P: math.NaN(),
		Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN()}
	row.Diff = row.Value - row.Base
	row.Rel = math.NaN()
	if row.Base != 0 {
		row.Rel = row.Diff / row.Base
		row.Ratio = row.Value / row.Base
	}
	var diffs, ratios []float64
	for i := range rres {
		d := rres[i][s] - bres[i][s]
		if math.IsNaN(d) {
			continue
		}
		diffs = append(diffs, d)
		if bres[i][s] > 0 {
			ratios = append(ratios, rres[i][s]/bres[i][s])
		}
	}
	row.Lo, row.Hi = math.NaN(), math.NaN()
	switch {
	case len(diffs) == 0 || math.IsNaN(row.Diff):
		row.Verdict = NoData
		return row
	case !enough(s, sampleSize(s, base)) || !enough(s, sampleSize(s, run)):
		row.Verdict = TooFew
		return row
	case b.blocks < judgedBlocks || r.blocks < judgedBlocks:
		row.Verdict = TooShort
		return row
	}
	alpha := (1 - opt.Confidence) / 2
	sort.Float64s(diffs)
	row.Lo, row.Hi = quantile(diffs, alpha), quantile(diffs, 1-alpha)
	row.P = bootstrapP(diffs)
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		row.RatioLo, row.RatioHi = quantile(ratios, alpha), quantile(ratios, 1-alpha)
	}
	if s == Success {
		// Failures rare or absent: a bootstrap alone would be too sure.
		lo, hi := newcombe(run.OK(), run.N(), base.OK(), base.N(), opt.Confidence)
		row.Lo, row.Hi = math.Min(row.Lo, lo), math.Max(row.Hi, hi)
	}
	row.Verdict = runLevelVerdict(s, row, opt)
	return row
}

// runLevelVerdict: worse or better when the interval excludes no change
// and the point is at least the minimum change away; no difference when
// the interval lies within the minimum change; cannot tell otherwise.
func runLevelVerdict(s Stat, row Row, opt Options) string {
	lo, hi, d, m := row.RatioLo-1, row.RatioHi-1, row.Ratio-1, opt.MinChange
	if s == Success {
		lo, hi, d, m = row.Lo, row.Hi, row.Diff, opt.MinPoints
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(d) {
		return CannotTell
	}
	switch {
	case lo > 0 && d >= m:
		return verdict(s, lo, hi)
	case hi < 0 && -d >= m:
		return verdict(s, lo, hi)
	case lo >= -m && hi <= m:
		return NoChange
	}
	return CannotTell
}

// runLevelMethod states the run-level method for the report.
func (r Report) runLevelMethod() string {
	var b strings.Builder
	b.WriteString("each side resampled by time blocks of its runs (about 2 s of due time each, shorter runs cut into 10): ")
	fmt.Fprintf(&b, "%d block-bootstrap resamples, seed %d; ", r.Options.Resamples, r.Options.Seed)
	b.WriteString("replicates of a side are resampled too, so the variance between runs counts; ")
	fmt.Fprintf(&b, "%g%% percentile interval of run / baseline (success: run - baseline, widened to Newcombe's score interval). ", 100*r.Options.Confidence)
	fmt.Fprintf(&b, "Worse or better: the interval excludes no change and the change is at least %g%% (success: %g points); "+
		"no difference: the interval lies within that; cannot tell: neither.", 100*r.Options.MinChange, r.Options.MinPoints)
	for _, row := range r.Rows {
		if row.Stat == Throughput {
			b.WriteString(" Throughput (successful answers a second, what a closed loop's users achieve): the same block bootstrap of the success count.")
			break
		}
	}
	return b.String()
}

// busyNotes says which runs ran on a busy machine: their own schedule
// lag p99 above runblock.NoisyLagShare of their latency p99.
func busyNotes(runs []*Run) []string {
	var out []string
	for _, run := range runs {
		for _, r := range run.replicas() {
			if noisy, why := r.Health().Judge(); noisy {
				out = append(out, r.Name+" ran on a busy machine: "+why+"; its figures carry the machine's delays")
			}
		}
	}
	return out
}
