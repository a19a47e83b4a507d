// Package runblock is the unit of evidence of loadlab's verdicts: a run
// (one step's scenario of it) cut into time blocks, and what the machine
// did to the run while it went (its health).
//
// Requests of one run share that run's machine: a two-second pause of the
// runner delays hundreds of them at once, so they are not independent
// samples. The verdicts of `loadlab compare`, `archive trend` and
// `model -fit` therefore judge differences against the variance between
// runs, and within a run against the variance between its time blocks
// (a block bootstrap over Blocks), never against the per-request variance
// alone. Package verdict holds the method; this package holds the data
// it reads, as the attack and `archive add` record it.
//
// The contract between producers and consumers:
//   - Blocks are cut on the due time (latency is measured from it), of
//     BlockLength each, the last one possibly shorter; a block keeps the
//     latency histogram of the requests due in it (from due, as
//     metrics.NewHistogram records), its counts and its schedule lag.
//   - Health summarises a run: lag, the generator's CPU, the machine's
//     busy and steal shares, and one Noise figure; Noisy says whether a
//     verdict may rest on the run (see Health.Judge).
//
// Cutter makes the blocks from results as they stream (and LagMeter the
// lag part of Health without them); EncodeBlocks and DecodeBlocks are how
// the archive stores a step's blocks, and DecodeHistogram decodes a
// block's histogram with its size checked first. Package probe measures
// the machine's part of Health while an attack runs.
package runblock

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// BlockLength is the default length of a time block: long enough to hold
// a few hundred requests at the rates teams test at, short enough that a
// 30 s run has 15 blocks and a machine pause of a second or two falls in
// one or two of them.
const BlockLength = 2 * time.Second

// Block is one time block of a run's step and scenario.
type Block struct {
	// Start is the block's start, from the step's first due time.
	Start time.Duration `json:"start"`
	// Length is its length (BlockLength but the last, which may be shorter).
	Length time.Duration `json:"length"`
	// Requests due in the block, and those that succeeded.
	Requests uint64 `json:"requests"`
	OK       uint64 `json:"ok"`
	// LagP99 is the 99th percentile of the schedule lag (sent − due) of
	// the block's requests.
	LagP99 time.Duration `json:"lag_p99"`
	// Hist is the latency (from due) histogram of the block's requests,
	// made by metrics.NewHistogram, encoded as HdrHistogram's compressed
	// V2 form (hdrhistogram.Histogram.Encode).
	Hist []byte `json:"hist"`
}

// Health is what the machine did to a run while it went. Shares are of
// the run's wall time, 0..1; Unknown (−1) when not measured.
type Health struct {
	// LagP50 and LagP99 are the percentiles of the schedule lag (sent −
	// due) over every request of the run.
	LagP50 time.Duration `json:"lag_p50"`
	LagP99 time.Duration `json:"lag_p99"`
	// GeneratorCPU is the load generator's CPU time over the run's wall
	// time, in cores (1.0: one core busy all along).
	GeneratorCPU float64 `json:"generator_cpu"`
	// GeneratorSaturated is the share of sampling intervals in which the
	// generator used (nearly) all of a core it could run on.
	GeneratorSaturated float64 `json:"generator_saturated"`
	// Busy is the machine's busy share over all its cores, and Steal the
	// share a hypervisor took from it (/proc/stat).
	Busy  float64 `json:"busy"`
	Steal float64 `json:"steal"`
	// Noise is the run's own delay against the figure it reports: its
	// lag p99 over its latency p99 (both from due); 0 when unknown.
	Noise float64 `json:"noise"`
	// Pacer is the attack's pacer at its end: "precise" or "batched"
	// (asked for, or fallen back to); "" when not recorded.
	Pacer string `json:"pacer,omitempty"`
	// PacerFallback, when not empty, says when and why the precise pacer
	// fell back to batching because the generator could not keep its
	// schedule (attack.Fallback's text).
	PacerFallback string `json:"pacer_fallback,omitempty"`
}

// Unknown marks a share or figure of Health that was not measured.
const Unknown = -1.0

// Thresholds past which a run is noisy: its own delays are a visible
// share of what it measured, or the machine was not its own.
const (
	// NoisyLagShare: lag p99 above 10% of the latency p99 it reports.
	NoisyLagShare = 0.10
	// NoisySteal: a hypervisor took more than 5% of the machine.
	NoisySteal = 0.05
	// NoisySaturated: the generator's core was saturated in more than a
	// quarter of the run.
	NoisySaturated = 0.25
)

// Judge says whether a verdict may rest on the run, and if not, why (one
// clause for a user: "its schedule lag p99 (42 ms) is 35% of its p99").
func (h Health) Judge() (noisy bool, why string) {
	switch {
	case h.Noise > NoisyLagShare:
		return true, "its own schedule lag p99 (" + h.LagP99.Round(time.Microsecond*100).String() + ") is " + percent(h.Noise) + " of its latency p99"
	case known(h.Steal) && h.Steal > NoisySteal:
		return true, "the hypervisor stole " + percent(h.Steal) + " of the machine"
	case known(h.GeneratorSaturated) && h.GeneratorSaturated > NoisySaturated:
		return true, "the load generator's core was saturated " + percent(h.GeneratorSaturated) + " of the time"
	}
	return false, ""
}

// LatencyP99 is the latency p99 (from due) that Noise was computed
// against (LagP99 over Noise); 0 when either is unknown.
func (h Health) LatencyP99() time.Duration {
	if h.LagP99 <= 0 || h.Noise <= 0 {
		return 0
	}
	return time.Duration(float64(h.LagP99) / h.Noise).Round(time.Microsecond)
}

// TypicalP99 is the median latency p99 of the runs whose health knows it
// (Health.LatencyP99): what the runs judged together usually measure,
// against which JudgeAmong weighs each run's lag. 0 when none knows it.
func TypicalP99(hs []*Health) time.Duration {
	var ps []time.Duration
	for _, h := range hs {
		if h != nil {
			if p := h.LatencyP99(); p > 0 {
				ps = append(ps, p)
			}
		}
	}
	if len(ps) == 0 {
		return 0
	}
	slices.Sort(ps)
	if n := len(ps); n%2 == 0 {
		return (ps[n/2-1] + ps[n/2]) / 2
	}
	return ps[len(ps)/2]
}

// JudgeAmong is Judge for a run judged together with others whose
// typical latency p99 is typical (TypicalP99; 0: Judge alone). A machine
// that stalls the target as well as the generator inflates the run's own
// p99 with the same delays, so that its lag stays a small share of it
// (18 ms of lag in a p99 of 335 ms, where its peers measured 23 ms): the
// run is noisy too when its lag p99 is over NoisyLagShare of typical.
func (h Health) JudgeAmong(typical time.Duration) (noisy bool, why string) {
	if noisy, why := h.Judge(); noisy {
		return noisy, why
	}
	if typical > 0 && h.LagP99 > 0 && float64(h.LagP99) > NoisyLagShare*float64(typical) {
		return true, "its own schedule lag p99 (" + h.LagP99.Round(time.Microsecond*100).String() + ") is " +
			percent(float64(h.LagP99)/float64(typical)) + " of the latency p99 its peers typically measured (" + typical.Round(time.Microsecond*100).String() + ")"
	}
	return false, ""
}

func known(f float64) bool { return f >= 0 }

func percent(f float64) string {
	p := math.Round(f * 100)
	if p < 1 && f > 0 {
		return "<1%"
	}
	return strconv.Itoa(int(p)) + "%"
}
