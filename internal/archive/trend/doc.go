// Package trend answers "which build made it slower?" over the run
// archive: one figure (p50 ... p99, mean, max, success, throughput) of the
// runs a filter selects, ordered by a label's value (build dates, version
// numbers, commits in the order they were first run) or by start time,
// with its change points (package archive/changepoint).
//
// Each candidate change of a latency or success figure is checked against
// the runs' raw distributions: the stored histograms of the runs on each
// side are pooled and compared with the bootstrap of `loadlab compare`
// (package compare), so a verdict holds on a series as short as six runs,
// where a permutation test over six figures cannot be significant. A change
// is reported when it is significant both ways the evidence allows (the
// bootstrap's 95% interval excludes no change; the permutation test, when
// the series is long enough for it to decide, at 5%) and at least the
// minimum relative size (5% by default), so the run-to-run noise of an
// unchanged build raises no alarm. The maximum and the throughput have no
// per-request distribution: their changes rest on the permutation test
// alone, and need a longer series (four runs on each side at least).
package trend
