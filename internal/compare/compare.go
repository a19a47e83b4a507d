package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Options tune the bootstrap.
type Options struct {
	Resamples  int     // bootstrap replicates; 0 means 1000 (RunLevelResamples with RunLevel)
	Seed       uint64  // random seed; with a run's content it seeds the run's resamples, so the same seed gives the same table
	Confidence float64 // 0 means 0.95 (RunLevelConfidence with RunLevel)
	// RunLevel judges runs, not requests: intervals from a bootstrap of
	// each run's time blocks (and of a side's replicates), verdicts
	// that also need MinChange (see judge.go). Without it every request
	// is resampled on its own.
	RunLevel bool
	// MinChange is the smallest relative change of a latency or a
	// throughput called worse or better with RunLevel (0 means
	// DefaultMinChange, below 0 every change beyond noise), MinPoints
	// that of the success ratio, in percentage points (likewise,
	// DefaultMinPoints).
	MinChange, MinPoints float64
}

func (o Options) withDefaults() Options {
	if o.Resamples <= 0 {
		o.Resamples = 1000
		if o.RunLevel {
			o.Resamples = RunLevelResamples
		}
	}
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = 0.95
		if o.RunLevel {
			o.Confidence = RunLevelConfidence
		}
	}
	switch {
	case o.MinChange == 0:
		o.MinChange = DefaultMinChange
	case o.MinChange < 0:
		o.MinChange = 0 // every change beyond noise
	}
	switch {
	case o.MinPoints == 0:
		o.MinPoints = DefaultMinPoints
	case o.MinPoints < 0:
		o.MinPoints = 0
	}
	return o
}

// Verdicts.
const (
	Slower = "slower"
	Faster = "faster"
	Worse  = "worse"  // lower success ratio
	Better = "better" // higher success ratio
	Higher = "higher" // more successful answers a second
	Lower  = "lower"  // fewer successful answers a second
	NoDiff = "no significant difference"
	NoData = "no data"
	TooFew = "too few requests"
)

// MinTail is how many requests a run needs beyond a percentile (and on each
// side of the success ratio's count) for its bootstrap interval to mean
// something: p99 needs 500 requests, p90 50, p50 and the mean 10.
const MinTail = 5

// enough reports whether n requests are enough to compare statistic s.
func enough(s Stat, n int64) bool {
	switch s {
	case P50, P90, P95, P99:
		return float64(n)*(1-quantileOf[s]) >= MinTail
	}
	return n >= 2*MinTail
}

// Row is one statistic of one run against the baseline.
type Row struct {
	Run    string
	Stat   Stat
	Base   float64 // baseline's value: ms, or % for Success
	Value  float64 // the run's value
	Diff   float64 // Value - Base
	Lo, Hi float64 // confidence interval of Diff
	Rel    float64 // Diff / Base, NaN when Base is 0
	P      float64 // two-sided bootstrap p-value of Diff; NaN when not judged
	// Ratio is Value / Base, and RatioLo, RatioHi its interval (run-level
	// verdicts only, NaN when not judged; 0 otherwise).
	Ratio, RatioLo, RatioHi float64
	Verdict                 string
}

// Report is the outcome of a comparison.
type Report struct {
	Group    string // the runs' Group
	Baseline string
	Runs     []string // every run, baseline first
	Requests []int64  // each run's requests, as Runs
	Files    []int    // how many results files each run was read from, as Runs (0: not known)
	Options  Options
	Rows     []Row
	// Notes are what a reader should know before trusting the verdicts:
	// runs made on a busy machine.
	Notes []string
	// Duet is set when the report compares the two sides of one duet
	// attack (ComparePaired).
	Duet bool
}

// Method states how the verdicts were reached, for the report.
func (r Report) Method() string {
	if r.Options.RunLevel {
		return r.runLevelMethod()
	}
	for _, row := range r.Rows {
		if row.Stat == Throughput {
			return r.latencyMethod() + " Throughput (successful answers a second, what a closed loop's users achieve): " +
				"the same bootstrap of the success count over the run's length, as for a count of independent arrivals, " +
				"wider than the interval of a closed loop's steadier count."
		}
	}
	return r.latencyMethod()
}

func (r Report) latencyMethod() string {
	return fmt.Sprintf("latencies: Poisson bootstrap over HDR histogram buckets, %d resamples per run, seed %d, "+
		"%.0f%% percentile interval of (run - baseline); success: Newcombe's score interval. "+
		"A difference is real when its interval excludes 0.",
		r.Options.Resamples, r.Options.Seed, 100*r.Options.Confidence)
}

// Compare compares every run with base.
func Compare(base *Run, runs []*Run, opt Options) Report {
	opt = opt.withDefaults()
	if opt.RunLevel {
		return compareRunLevel(base, runs, opt)
	}
	rep := Report{Group: base.Group, Baseline: base.Name, Options: opt}
	rep.addRun(base)
	bb := flatten(base)
	bpoint := bb.point()
	bres := bb.resample(opt.Seed, opt.Resamples)
	for _, run := range runs {
		rep.addRun(run)
		rb := flatten(run)
		rpoint := rb.point()
		rres := rb.resample(opt.Seed, opt.Resamples)
		stats := Stats
		if base.Users > 0 || run.Users > 0 {
			stats = append([]Stat{Throughput}, Stats...)
		}
		for _, s := range stats {
			rep.Rows = append(rep.Rows, row(s, base, run, bpoint, rpoint, bres, rres, opt))
		}
	}
	return rep
}

// CompareStat compares one statistic of run with base, as Compare does
// for each of its table's (and P95, which the table leaves out).
func CompareStat(base, run *Run, s Stat, opt Options) Row {
	opt = opt.withDefaults()
	bb, rb := flatten(base), flatten(run)
	return row(s, base, run, bb.point(), rb.point(), bb.resample(opt.Seed, opt.Resamples), rb.resample(opt.Seed, opt.Resamples), opt)
}

// Point is statistic s of run as Compare reports it (its Base or Value):
// ms for latencies, % for Success; NaN for an empty run.
func Point(run *Run, s Stat) float64 {
	b := flatten(run)
	return b.point()[s]
}

// row compares statistic s of run with base from their points and
// bootstrap replicates.
func row(s Stat, base, run *Run, bpoint, rpoint [numStats]float64, bres, rres [][numStats]float64, opt Options) Row {
	alpha := (1 - opt.Confidence) / 2
	row := Row{Run: run.Name, Stat: s, Base: bpoint[s], Value: rpoint[s], P: math.NaN()}
	row.Diff = row.Value - row.Base
	row.Rel = math.NaN()
	if row.Base != 0 {
		row.Rel = row.Diff / row.Base
	}
	diffs := make([]float64, 0, len(rres))
	for i := range rres {
		d := rres[i][s] - bres[i][s]
		if !math.IsNaN(d) {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) == 0 || math.IsNaN(row.Diff) {
		row.Lo, row.Hi, row.Verdict = math.NaN(), math.NaN(), NoData
		return row
	}
	if !enough(s, sampleSize(s, base)) || !enough(s, sampleSize(s, run)) {
		row.Lo, row.Hi, row.Verdict = math.NaN(), math.NaN(), TooFew
		return row
	}
	sort.Float64s(diffs)
	row.Lo, row.Hi = quantile(diffs, alpha), quantile(diffs, 1-alpha)
	row.P = bootstrapP(diffs)
	if s == Success {
		row.Lo, row.Hi = newcombe(run.OK(), run.N(), base.OK(), base.N(), opt.Confidence)
	}
	row.Verdict = perRequest(s, row.Lo, row.Hi)
	return row
}

// bootstrapP is the two-sided bootstrap p-value of a difference from its
// sorted replicates: twice the share of replicates on the far side of
// zero, counting the observed difference as one replicate (so never 0).
func bootstrapP(sorted []float64) float64 {
	below := sort.SearchFloat64s(sorted, 0)                                                    // < 0
	above := len(sorted) - sort.Search(len(sorted), func(i int) bool { return sorted[i] > 0 }) // > 0
	far := min(below, above) + (len(sorted)-below-above)/2                                     // ties at 0 split
	return min(1, 2*float64(far+1)/float64(len(sorted)+1))
}

func (r *Report) addRun(run *Run) {
	r.Runs = append(r.Runs, run.Name)
	r.Requests = append(r.Requests, run.N())
	r.Files = append(r.Files, len(run.Files))
}

// Sizes states each run's requests, and the number of files of a run read
// from several (the shard files of one attack): "a.lll 200, b-*.lll 200
// (3 files)".
func (r Report) Sizes() string {
	parts := make([]string, len(r.Runs))
	for i, name := range r.Runs {
		parts[i] = fmt.Sprintf("%s %d", name, r.Requests[i])
		if r.Files[i] > 1 {
			parts[i] += fmt.Sprintf(" (%d files)", r.Files[i])
		}
	}
	return strings.Join(parts, ", ")
}

// sampleSize is the number of requests statistic s of run is taken from:
// every request for the success ratio, the ones with a latency (not
// dropped) for the others.
func sampleSize(s Stat, run *Run) int64 {
	switch s {
	case Success:
		return run.N()
	case Throughput:
		return run.OK()
	}
	return int64(run.Latencies().Count)
}

// perRequest is the per-request verdict of an interval [lo, hi] of a
// difference: real when it excludes zero.
func perRequest(s Stat, lo, hi float64) string {
	switch {
	case lo > 0 && s == Success:
		return Better
	case hi < 0 && s == Success:
		return Worse
	case lo > 0 && s == Throughput:
		return Higher
	case hi < 0 && s == Throughput:
		return Lower
	case lo > 0:
		return Slower
	case hi < 0:
		return Faster
	}
	return NoDiff
}

// quantile of sorted xs by linear interpolation.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}

// newcombe is the confidence interval, in percentage points, of the
// difference of two proportions x1/n1 - x2/n2 by Newcombe's hybrid score
// method (1998, method 10) from Wilson intervals. Unlike a bootstrap it
// stays honest when failures are rare or absent.
func newcombe(x1, n1, x2, n2 int64, confidence float64) (lo, hi float64) {
	z := normalQuantile(1 - (1-confidence)/2)
	p1, l1, u1 := wilson(x1, n1, z)
	p2, l2, u2 := wilson(x2, n2, z)
	d := p1 - p2
	lo = d - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	hi = d + math.Sqrt((u1-p1)*(u1-p1)+(p2-l2)*(p2-l2))
	return 100 * lo, 100 * hi
}

// wilson is the Wilson score interval of the proportion x/n.
func wilson(x, n int64, z float64) (p, lo, hi float64) {
	fn := float64(n)
	p = float64(x) / fn
	z2 := z * z
	center := (p + z2/(2*fn)) / (1 + z2/fn)
	half := z / (1 + z2/fn) * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn))
	return p, math.Max(0, center-half), math.Min(1, center+half)
}

// normalQuantile is the standard normal quantile (inverse CDF) of p.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
