package compare

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// Run is one side of a comparison: a name, and the metrics of all its
// requests (package metrics, the same figures `loadlab report` prints: a
// run's p99 here is its report's p99).
type Run struct {
	Name  string
	Group string   // runs are compared within their group (see Load)
	Files []string // the results files it was read from (several: the shard files of one attack)
	// Users are a closed loop's users (0: paced, or not known), from the
	// summary.json of the run folder it was read from; a closed loop is
	// compared on its throughput first.
	Users int
	// Span is what the throughput of a run rebuilt from a histogram
	// (NewRunFromHistogram) is counted over: the time from its first
	// request sent to its last answer, as metrics measured it; 0 when not
	// known (then it has no throughput). A run read from results files
	// has it from its Metrics.
	Span    time.Duration
	Metrics *metrics.Metrics
	// Replicas are the runs of a side made of several runs of the same
	// thing (Replicated); nil for a single run.
	Replicas []*Run

	basis metrics.Basis
	// cut cuts its results into time blocks for the run-level verdicts
	// (blocks.go); nil when rebuilt from a histogram or made of
	// replicates. pairs places a duet side's results by request pair.
	cut   *runblock.Cutter
	pairs *pairClock
	fine  []runblock.Block // cut's blocks, once asked for
	// kept are the time blocks and health an archive kept of a run
	// rebuilt from a histogram (Keep).
	kept   []runblock.Block
	health *runblock.Health
}

// Keep gives a run rebuilt from a histogram the time blocks an archive
// kept of it (cut as runblock.Cutter cuts them) and the health it
// recorded: its run-level verdicts rest on them, as on the blocks of a
// run read from its results. Without blocks (a run archived before the
// archive kept them) there is no run-level evidence, and its verdicts
// are cannot tell.
func (r *Run) Keep(blocks []runblock.Block, health runblock.Health) {
	r.kept, r.health = blocks, &health
}

var _ results.Sink = (*Run)(nil)

// NewRun returns an empty run whose latencies are measured from basis.
func NewRun(name string, basis metrics.Basis) *Run {
	return &Run{Name: name, Metrics: metrics.NewWith(metrics.Options{NoBreakdown: true, Basis: basis}),
		basis: basis, cut: runblock.NewCutter(time.Time{}, grain)}
}

// newDuetSide returns an empty side of a duet whose results are cut into
// blocks by their request pairs (c, shared by both sides).
func newDuetSide(name string, basis metrics.Basis, c *pairClock) *Run {
	r := NewRun(name, basis)
	r.cut, r.pairs = runblock.NewCutter(c.origin, grain), c
	return r
}

// Add records one result, as report counts it: every request's latency
// but the dropped ones', and whether it succeeded.
func (r *Run) Add(res *results.Result) {
	r.Metrics.Add(res)
	switch {
	case r.cut == nil:
	case r.pairs != nil:
		r.cut.AddAt(res, r.pairs.at(res.Seq))
	case !res.Due.IsZero() || !res.Sent.IsZero():
		r.cut.Add(res)
	default:
		return // no time to cut it by
	}
	r.fine = nil
}

// Health is what the machine did to the run as far as its results tell:
// its schedule lag, and its lag p99 over its latency p99 from the due
// time (Noise). The shares the results do not hold are runblock.Unknown.
func (r *Run) Health() runblock.Health {
	if r.health != nil {
		return *r.health
	}
	r.Metrics.Close()
	due := r.Metrics.Latencies
	if r.basis != metrics.FromDue {
		due = r.Metrics.OtherLatencies
	}
	h := runblock.Health{LagP99: r.Metrics.Lag.P99, GeneratorCPU: runblock.Unknown,
		GeneratorSaturated: runblock.Unknown, Busy: runblock.Unknown, Steal: runblock.Unknown}
	if due.P99 > 0 {
		h.Noise = float64(h.LagP99) / float64(due.P99)
	}
	return h
}

// Record records one request's latency and outcome (a 200 or a 500).
func (r *Run) Record(latency time.Duration, ok bool) {
	res := results.Result{Latency: latency, Code: 500}
	if ok {
		res.Code = 200
	}
	r.Metrics.Add(&res)
}

// Latencies returns the run's latencies, closed.
func (r *Run) Latencies() *metrics.Latencies {
	r.Metrics.Close()
	return &r.Metrics.Latencies
}

// N is the number of requests.
func (r *Run) N() int64 { return int64(r.Metrics.Requests) }

// OK is the number of successful requests (2xx/3xx).
func (r *Run) OK() int64 { return int64(r.Metrics.Successes) }

// NewRunFromHistogram returns a run rebuilt from a stored latency
// histogram (made by metrics.NewHistogram, as the run archive keeps each
// step's) and its request and success counts, for runs whose results are
// not re-read. h is copied, not retained.
func NewRunFromHistogram(name string, h *hdrhistogram.Histogram, requests, successes uint64) *Run {
	return &Run{Name: name, Metrics: metrics.FromHistogram(h, requests, successes)}
}
