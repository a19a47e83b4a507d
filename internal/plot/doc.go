// Package plot draws loadlab's charts as static SVG in pure Go, from plain
// data structures that the experiment runner and the CLI fill in:
//
//   - latency over time, a scatter coloured by status class as vegeta plot
//     draws it, downsampled deterministically by LatencyPoints so that a file
//     of ten million results still yields a small SVG;
//   - throughput and status codes over time, from a Timeline;
//   - the latency percentile distribution of one or several runs, overlaid on
//     HdrHistogram's plotter axis (x = 1/(1-p) on a log scale, labelled 0%,
//     90%, 99%, 99.9% ...), from Distribution values;
//   - any sampled server metric over time (Metric), on the same time axis as
//     the latency so graphs line up.
//
// A Chart is only data (axes and series); WriteSVG renders it, and the
// sibling package plot/web renders the same Chart as an interactive uPlot
// chart in a self-contained HTML page.
package plot
