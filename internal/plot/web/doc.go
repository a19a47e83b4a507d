// Package web writes loadlab's interactive charts as one self-contained
// HTML page: the uPlot library (embedded from assets/, refreshed by
// scripts/update-uplot.sh), its stylesheet, the page's script and every
// chart's data are inlined, so the file opens with no network. Charts zoom
// (drag across the plot, double-click to reset), show values on hover and
// toggle series by clicking their legend entries. The page draws the same
// plot.Chart values the SVG renderer draws.
package web
