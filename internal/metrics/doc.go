// Package metrics aggregates results into the figures reports print, in one
// streaming pass and in fixed memory: vegeta's fields (requests, rate,
// throughput, durations, latencies, bytes, success, status codes, error set)
// computed exactly as vegeta computes them, and loadlab's own (latency from
// the due time beside latency from the send time, schedule lag, dropped
// requests, breakdowns by attack name, target and step, per-interval
// figures).
//
// Percentiles come from an HdrHistogram with 3 significant digits over
// 1µs..1h; minimum, maximum, mean and total are kept exactly beside it, and
// percentiles are clamped to [min, max] so they never exceed the maximum.
// Nothing is stored per result: memory depends on the number of distinct
// groups, errors and open intervals, each capped (see Options), never on the
// number of results.
package metrics
