// Package trend answers "which build made it slower?" over the run
// archive: one figure (p50 ... p99, mean, max, success, throughput) of the
// runs a filter selects, ordered by a label's value (build dates, version
// numbers, commits in the order they were first run) or by start time,
// with its change points (package archive/changepoint) and the CI gate's
// verdict on the newest build.
//
// The runs sharing a value of the label are one build's replicates. The
// change points are searched in the builds' levels (Apache Otava's
// method, package changepoint); each candidate, and the newest build
// against the level since the last improvement (or since a run a team
// accepted as the baseline; a regression not accepted keeps the gate
// failing), is judged by package verdict over
// the runs, not the requests: a Student t interval (99%) over the runs'
// figures with their run-to-run variance, each run's at least its
// within-run variance (a block bootstrap over its time blocks when the
// archive keeps them). The answer is worse, better, no change or cannot
// tell (too few or too noisy runs), the last with how many repeats of the
// newest build would decide. Runs whose own schedule lag was a visible
// share of the latency they measured, or of the p99 the series' runs
// typically measured (a runner that stalled the service with the
// generator inflates the run's own p99 too), are noisy: named, and left
// out while clean runs remain.
package trend
