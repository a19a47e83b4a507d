package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/loadlab/loadlab/internal/verdict"
)

// This file is the run-level judgement `loadlab compare` uses (Options.
// RunLevel): every figure of a run against its baseline judged by package
// verdict, the method `archive trend` and the results site use too, over
// the runs' time blocks (blocks.go), so that noise shared by the requests
// of one run (a paused or busy machine) widens the interval instead of
// becoming a verdict. What is compare's own: which figures a table has,
// the minimum requests a figure needs (MinTail), and its verdict words.

// Run-level verdicts, beside Slower, Faster, Worse, Better, Higher and
// Lower (a difference beyond noise and the minimum change).
const (
	// NoChange: the interval rules out a change of the minimum change.
	NoChange = "no difference"
	// CannotTell: the interval is too wide to rule out the minimum change
	// either way.
	CannotTell = "cannot tell"
	// TooShort: a run of a side has time blocks, but fewer than
	// verdict.MinBlocks.
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
	// RunLevelResamples is how many block-bootstrap resamples a run gets
	// (verdict.Options.Resamples): enough that a verdict does not depend
	// on the seed.
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
	out.cut = nil
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

// sideRun is one run of a side as package verdict reads it: its time
// blocks, health and requests, with its figures (the Values judged).
type sideRun struct {
	run    verdict.Run
	points [numStats]float64
}

// sideOf is each replicate of side (or side itself) with its blocks.
func sideOf(side *Run) []sideRun {
	var out []sideRun
	for _, r := range side.replicas() {
		out = append(out, sideRunOf(r, grainsPerBlock(len(r.grains()))))
	}
	return out
}

// sideRunOf is run r with its grains joined per to a block.
func sideRunOf(r *Run, per int) sideRun {
	h := r.Health()
	b := flatten(r)
	return sideRun{run: verdict.Run{ID: r.Name, Requests: uint64(r.N()), Blocks: blocksOf(r, per), Health: &h}, points: b.point()}
}

// runsFor is the side's runs with stat s's figure as their Value.
func runsFor(side []sideRun, s Stat) []verdict.Run {
	out := make([]verdict.Run, len(side))
	for i, r := range side {
		out[i] = r.run
		out[i].Value = r.points[s]
	}
	return out
}

// short reports whether a run of the side has too few blocks to judge
// (a run with none at all is left to the verdict: without run-level
// evidence it cannot tell).
func short(side []sideRun) bool {
	for _, r := range side {
		if n := len(r.run.Blocks); n > 0 && n < verdict.MinBlocks {
			return true
		}
	}
	return false
}

// healthless is runs with their health unknown.
func healthless(runs []verdict.Run) []verdict.Run {
	out := make([]verdict.Run, len(runs))
	for i, r := range runs {
		out[i], out[i].Health = r, nil
	}
	return out
}

// vstat is s as package verdict names it.
func vstat(s Stat) verdict.Stat { return verdict.Stat(s.String()) }

// voptions is the verdict's options for stat s.
func voptions(s Stat, opt Options) verdict.Options {
	m := opt.MinChange
	if s == Success {
		m = opt.MinPoints
	}
	if m == 0 {
		m = -1 // every change beyond noise
	}
	return verdict.Options{Stat: vstat(s), MinChange: m, Confidence: opt.Confidence, Seed: opt.Seed, Resamples: opt.Resamples}
}

// compareRunLevel is Compare with run-level intervals.
func compareRunLevel(base *Run, runs []*Run, opt Options) Report {
	rep := Report{Group: base.Group, Baseline: base.Name, Options: opt}
	rep.addRun(base)
	bside := sideOf(base)
	for _, run := range runs {
		rep.addRun(run)
		rside := sideOf(run)
		stats := Stats
		if base.Users > 0 || run.Users > 0 {
			stats = append([]Stat{Throughput}, Stats...)
		}
		for _, s := range stats {
			rep.Rows = append(rep.Rows, judgeRow(s, base, run, bside, rside, opt, func(b, r []verdict.Run, o verdict.Options) (verdict.Verdict, error) {
				return verdict.Judge(b, r, o)
			}))
		}
	}
	rep.Notes = busyNotes(append([]*Run{base}, runs...))
	if len(rep.Notes) > 0 {
		rep.Notes = append(rep.Notes, "no verdict rests on a run made on a busy machine: it is left out while its side keeps another run, else the difference cannot tell "+
			"(unless the machine's delays, which only add latency, could only have hidden it): compare runs of a quiet machine, repeat them, or measure both builds at once (a duet)")
	}
	return rep
}

// busyNotes says which runs ran on a busy machine (runblock.Health.Judge).
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

// judgeFunc judges a figure of two sides' runs: verdict.Judge, or
// verdict.JudgePaired for a duet.
type judgeFunc func(before, after []verdict.Run, o verdict.Options) (verdict.Verdict, error)

// judgeRow judges statistic s of run against base with judge: the
// figures are compare's (the pooled requests of a side's replicates),
// the interval and outcome the verdict's.
func judgeRow(s Stat, base, run *Run, bside, rside []sideRun, opt Options, judge judgeFunc) Row {
	row := Row{Run: run.Name, Stat: s, Base: Point(base, s), Value: Point(run, s), P: math.NaN(),
		Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Rel: math.NaN()}
	row.Diff = row.Value - row.Base
	if row.Base != 0 {
		row.Rel = row.Diff / row.Base
		row.Ratio = row.Value / row.Base
	}
	switch {
	case math.IsNaN(row.Diff):
		row.Verdict = NoData
		return row
	case !enough(s, sampleSize(s, base)) || !enough(s, sampleSize(s, run)):
		row.Verdict = TooFew
		return row
	case short(bside) || short(rside):
		row.Verdict = TooShort
		return row
	}
	before, after, vo := runsFor(bside, s), runsFor(rside, s), voptions(s, opt)
	v, err := judge(before, after, vo)
	if err != nil {
		row.Verdict = CannotTell
		return row
	}
	if v.Outcome == verdict.CannotTell && len(v.Noisy) > 0 && math.IsNaN(v.Lo) {
		// A side of noisy runs only: no verdict, but the reader still
		// sees how wide the interval is with them.
		if w, err := judge(healthless(before), healthless(after), vo); err == nil {
			v.Lo, v.Hi = w.Lo, w.Hi
		}
	}
	if v.Relative {
		row.RatioLo, row.RatioHi = 1+v.Lo, 1+v.Hi
		row.Lo, row.Hi = row.Base*v.Lo, row.Base*v.Hi
	} else {
		row.Lo, row.Hi = v.Lo, v.Hi
	}
	switch v.Outcome {
	case verdict.Worse, verdict.Better:
		row.Verdict = words(s, v.Outcome == verdict.Worse)
	case verdict.Same:
		row.Verdict = NoChange
	default:
		row.Verdict = CannotTell
	}
	return row
}

// words is compare's word for a figure that got worse (or better).
func words(s Stat, worse bool) string {
	switch {
	case s == Success && worse:
		return Worse
	case s == Success:
		return Better
	case s == Throughput && worse:
		return Lower
	case s == Throughput:
		return Higher
	case worse:
		return Slower
	}
	return Faster
}

// runLevelMethod states the run-level method for the report.
func (r Report) runLevelMethod() string {
	var b strings.Builder
	b.WriteString("runs judged, not requests (package verdict, the method of loadlab archive trend and the results site): ")
	b.WriteString("each run's figure, its uncertainty from a bootstrap of its time blocks (2 s of due time each, shorter runs cut into 10), ")
	fmt.Fprintf(&b, "%d resamples a run; ", r.Options.Resamples)
	if r.Duet {
		b.WriteString("the duet's sides paired: the same blocks drawn for both, so noise that hit both cancels; ")
	} else {
		b.WriteString("the replicates of a side add their run-to-run spread, runs made on a busy machine are left out; ")
	}
	fmt.Fprintf(&b, "%g%% Student t interval of run / baseline (success: run - baseline in points, at least its requests' binomial spread). ", 100*r.Options.Confidence)
	fmt.Fprintf(&b, "Worse or better: the interval excludes no change and the change is at least %g%% (success: %g points); "+
		"no difference: the interval's worse side lies within that; cannot tell: neither.", 100*r.Options.MinChange, r.Options.MinPoints)
	for _, row := range r.Rows {
		if row.Stat == Throughput {
			b.WriteString(" Throughput (successful answers a second, what a closed loop's users achieve): the same block bootstrap of the success count.")
			break
		}
	}
	return b.String()
}
