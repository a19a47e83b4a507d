package report

import (
	"strconv"
	"time"
)

// LagNoteShare is the share of the latency p50 above which the
// generator's median schedule lag is called out: past it, a visible part
// of the latency a report shows is the load generator's own delay.
const LagNoteShare = 0.10

// LagNote says, when the generator's median schedule lag (sent − due) is
// more than LagNoteShare of the latency p50 it is part of, that the
// generator's own delay is a visible share of what was measured and how
// to avoid it; "" otherwise (and when either is unknown).
func LagNote(lagP50, latencyP50 time.Duration) string {
	if lagP50 <= 0 || latencyP50 <= 0 || float64(lagP50) <= LagNoteShare*float64(latencyP50) {
		return ""
	}
	share := int(100*float64(lagP50)/float64(latencyP50) + 0.5)
	return "the load generator's own schedule lag (p50 " + fine(lagP50).String() + ") is " + strconv.Itoa(share) +
		"% of the latency p50 (" + fine(latencyP50).String() + "): a visible share of what was measured is the generator's delay, not the target's. " +
		"To shrink it: pace with the precise pacer (-pacer=precise, the default; a run whose pacer fell back to batching says so on its Machine line), " +
		"give the generator a CPU of its own, away from the target (taskset), or split the rate over several generators (-shard i/n)"
}

// fine rounds d to the microsecond below a millisecond, else as Round.
func fine(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return Round(d)
}
