// Package ingest turns what loadlab and vegeta wrote into archive Bundles:
// a results file, the shard files of one split attack, a `loadlab run`
// folder (one run per matrix cell when its matrix varies a component, the
// cell's values as labels), or vegeta's .bin/.json/.csv results. Figures,
// text reports and histograms come from the same code `loadlab report`
// uses (internal/report, internal/metrics), so a run's p99 in the archive
// is its report's p99. Raw files are referenced, not read into memory:
// the store reads them as it writes them.
package ingest
