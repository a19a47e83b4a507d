// Package metrics aggregates results into the figures reports print, in one
// streaming pass and in fixed memory: vegeta's fields (requests, rate,
// throughput, durations, latencies, bytes, success, status codes, error set)
// computed exactly as vegeta computes them, and loadlab's own (latency from
// the due time beside latency from the send time, schedule lag, dropped
// requests, breakdowns by attack name, target and step, per-interval
// figures).
//
// Metrics and Intervals are results.Sinks: the step after the results
// stream in targets -> attack -> results -> metrics -> report, plot and
// compare, which all print the figures computed here. Latencies are
// measured from one Basis, the due time unless told otherwise.
//
// Percentiles come from loadlab's one latency histogram (NewHistogram: an
// HdrHistogram with 3 significant digits over 1µs..1h, which the progress
// line and the proxy's /status use too); minimum, maximum, mean and total
// are kept exactly beside it, and percentiles are clamped to [min, max] so
// they never exceed the maximum.
// Nothing is stored per result: memory depends on the number of distinct
// groups, errors and open intervals, each capped (see Options), never on the
// number of results.
package metrics
