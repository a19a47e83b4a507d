package verdict

import (
	"math"
	"time"

	"github.com/loadlab/loadlab/internal/runblock"
)

// Stat is the figure judged.
type Stat string

// The figures judged: latencies (ms) and throughput (/s) relatively, on a
// log scale; success and error rates (%) in absolute points.
const (
	P50        Stat = "p50"
	P90        Stat = "p90"
	P95        Stat = "p95"
	P99        Stat = "p99"
	Mean       Stat = "mean"
	Max        Stat = "max"
	Success    Stat = "success"
	Errors     Stat = "errors"
	Throughput Stat = "throughput"
)

// Points reports whether the stat is a rate judged in absolute
// percentage points rather than relatively.
func (s Stat) Points() bool { return s == Success || s == Errors }

// HigherIsWorse reports whether a rise of the stat is a regression.
func (s Stat) HigherIsWorse() bool { return s != Success && s != Throughput }

// Defaults of Options.
const (
	// DefaultConfidence is the level of the interval: 99%.
	DefaultConfidence = 0.99
	// DefaultMinChange is the smallest relative change of a latency or a
	// throughput that is a verdict: 5%.
	DefaultMinChange = 0.05
	// DefaultMinPoints is the smallest change of a success or error rate
	// that is a verdict: 1 point (a build failing 1% of its requests
	// where its predecessors failed none).
	DefaultMinPoints = 1.0
	// MaxRepeats bounds the repeats a power calculation proposes.
	MaxRepeats = 20
)

// Run is one run as the verdict reads it: plain figures, no archive.
type Run struct {
	ID string
	// Value is the run's figure in the stat's unit: ms for latencies,
	// percent for success and error rates, per second for throughput.
	Value float64
	// Requests is the run's request count; it bounds a rate's within-run
	// variance from below when the run has no blocks (binomial).
	Requests uint64
	// Blocks are the run's time blocks (optional): their spread is the
	// run's within-run uncertainty (a block bootstrap).
	Blocks []runblock.Block
	// Health is what the machine did to the run; nil when unknown.
	Health *runblock.Health

	// within caches the block bootstrap's variance (Prepare), flat the
	// blocks decoded (kept by copies of a prepared run).
	within   float64
	prepared *preparedFor
	flat     *flatBlocks
}

type preparedFor struct {
	stat      Stat
	seed      uint64
	resamples int
}

// Prepare computes the run's within-run variance of the stat (the block
// bootstrap) once, so that judging the run again, in every candidate
// split of a series, costs nothing; Judge computes it when not prepared
// for its stat and seed.
func (r *Run) Prepare(s Stat, seed uint64) error {
	return r.prepare(s, seed, Resamples)
}

func (r *Run) prepare(s Stat, seed uint64, resamples int) error {
	if err := r.flatten(); err != nil {
		return err
	}
	w, err := blockVariance(r.flat, s, seed, resamples)
	if err != nil {
		return err
	}
	r.within, r.prepared = w, &preparedFor{s, seed, resamples}
	return nil
}

// flatten decodes the run's blocks once.
func (r *Run) flatten() error {
	if r.flat != nil {
		return nil
	}
	f, err := flatten(r.Blocks)
	if err != nil {
		return err
	}
	r.flat = f
	return nil
}

// Options tune Judge. Zero fields take the defaults.
type Options struct {
	Stat Stat
	// MinChange is the smallest change that is a verdict: relative for
	// latencies and throughput (0.05), in points for rates (1); negative:
	// any change the interval shows.
	MinChange float64
	// NoiseFloor takes the minimum change from the replicates' run-to-run
	// spread (the smallest difference two single runs can show at the
	// confidence level) instead of MinChange, when there are replicates.
	NoiseFloor bool
	// Confidence is the interval's level (0.99).
	Confidence float64
	// Replicates are other groups of runs of one build each (figures in
	// the stat's unit), outside the two groups judged: their spread around
	// their own means joins the residuals of the two groups in the
	// run-to-run variance.
	Replicates [][]float64
	// TypicalP99 is the latency p99 the runs judged typically measure
	// (runblock.TypicalP99 over a whole series); 0: the median over the
	// runs of both sides. A run whose schedule lag p99 is over
	// runblock.NoisyLagShare of it is noisy (runblock.Health.JudgeAmong).
	TypicalP99 time.Duration
	// Seed seeds the block bootstrap (mixed with each run's content).
	Seed uint64
	// Resamples is the block bootstrap's resamples per run (Resamples
	// when 0): more give steadier intervals, slower.
	Resamples int

	keepNoisy bool // judge the noisy runs too (Judge's second look)
}

func (o Options) withDefaults() Options {
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = DefaultConfidence
	}
	if o.MinChange == 0 {
		o.MinChange = DefaultMinChange
		if o.Stat.Points() {
			o.MinChange = DefaultMinPoints
		}
	}
	if o.MinChange < 0 {
		o.MinChange = 0
	}
	if o.Resamples <= 0 {
		o.Resamples = Resamples
	}
	return o
}

// Outcome is a verdict's answer.
type Outcome string

// The outcomes.
const (
	// Worse: the interval excludes zero and the change is at least the
	// minimum, in the bad direction.
	Worse Outcome = "worse"
	// Better: likewise, in the good direction.
	Better Outcome = "better"
	// Same: the interval's worse side is below the minimum change.
	Same Outcome = "no change"
	// CannotTell: the runs are too few or too noisy to say either.
	CannotTell Outcome = "cannot tell"
)

// Excluded is a run the verdict left out, and why.
type Excluded struct {
	ID  string `json:"id"`
	Why string `json:"why"`
}

// Verdict is the judgement of a difference between two groups of runs.
type Verdict struct {
	Stat    Stat    `json:"stat"`
	Outcome Outcome `json:"outcome"`
	// Before and After are the groups' levels in the stat's unit
	// (geometric means of latencies and throughputs).
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Change is After against Before: relative (After/Before − 1) or in
	// points for rates, and Lo, Hi its interval at Confidence.
	Change     float64 `json:"change"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	// Relative says Change, Lo, Hi and MinChange are ratios − 1 (else
	// points).
	Relative  bool    `json:"relative"`
	MinChange float64 `json:"min_change"`
	// FloorFromReplicates says MinChange is the replicates' noise floor.
	FloorFromReplicates bool `json:"floor_from_replicates,omitempty"`
	// Noise is the run-to-run standard deviation of one run's figure
	// (relative or in points); NaN when unknown. DF is the degrees of
	// freedom it rests on.
	Noise float64 `json:"noise"`
	DF    int     `json:"df"`
	// WithinOnly says no run-to-run variance could be estimated (one run
	// each, no replicates): the interval rests on the runs' blocks alone.
	WithinOnly bool `json:"within_only,omitempty"`
	// Paired says the two sides ran at once on one machine and were
	// judged block by block (JudgePaired): the interval rests on the
	// spread of their difference over the same time blocks.
	Paired bool `json:"paired,omitempty"`
	// RunsBefore and RunsAfter are the runs judged on each side.
	RunsBefore int `json:"runs_before"`
	RunsAfter  int `json:"runs_after"`
	// Noisy are the runs left out (or, when too few clean runs remained,
	// the noisy runs that made the verdict cannot tell).
	Noisy []Excluded `json:"noisy,omitempty"`
	// NoisyKept says the noisy runs were judged with the others: a side
	// had no clean run, and the noise (lag only adds latency) could only
	// have hidden the change found.
	NoisyKept bool `json:"noisy_kept,omitempty"`
	// Repeats is how many runs of the newer build would decide a cannot
	// tell (0: none needed or more than MaxRepeats).
	Repeats int `json:"repeats,omitempty"`
	// Text says the verdict in a sentence.
	Text string `json:"text"`
}

// figure is a run's figure on the judged scale.
func (s Stat) figure(v float64) float64 {
	if s.Points() {
		return v
	}
	if v <= 0 {
		return math.NaN()
	}
	return math.Log(v)
}

func (s Stat) unscale(z float64) float64 {
	if s.Points() {
		return z
	}
	return math.Exp(z)
}

// minOnScale is the minimum change on the judged scale.
func (s Stat) minOnScale(m float64) float64 {
	if s.Points() {
		return m
	}
	return math.Log1p(m)
}

// sizeOf is a difference on the judged scale as reported.
func (s Stat) sizeOf(d float64) float64 {
	if s.Points() {
		return d
	}
	return math.Expm1(d)
}
