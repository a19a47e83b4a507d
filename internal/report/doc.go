// Package report turns results into the reports `loadlab report` prints:
// vegeta's text, JSON, histogram and HDR-plot layouts, byte for byte where
// vegeta defines them, with loadlab's additions (latency from the due time,
// schedule lag, dropped requests, breakdowns) after vegeta's fields, and
// per-interval reports. It reads any number of result sources, merged in
// send-time order, and reports what precedes a torn or corrupt tail.
package report
