package web

// pageJS draws every chart spec in window.LOADLAB_CHARTS with uPlot:
// scatter series as dots only, line and step series joined across the
// nulls of aligned data, drag to zoom on x, double-click to reset, a live
// legend (hover values; click an entry to hide or show its series), and on
// percentile charts a log x axis labelled 0%, 90%, 99%, 99.9%...
const pageJS = `(function () {
  "use strict";
  function pctLabel(v) {
    if (v <= 1) return "0%";
    var p = 100 * (1 - 1 / v);
    var d = Math.max(0, Math.ceil(Math.log10(v) - 1e-9) - 2);
    return p.toFixed(d) + "%";
  }
  function decadeSplits(u, ax, min, max) {
    var out = [];
    for (var v = 1; v <= max * 1.0001; v *= 10) if (v >= min / 1.0001) out.push(v);
    return out;
  }
  // nearest makes hovering read the closest point of each series: with
  // aligned data a scatter series is null at most x values.
  function nearest(u, si, hi) {
    var ys = u.data[si];
    if (si === 0 || ys[hi] != null) return hi;
    for (var d = 1; d < 500; d++) {
      if (hi - d >= 0 && ys[hi - d] != null) return hi - d;
      if (hi + d < ys.length && ys[hi + d] != null) return hi + d;
    }
    return hi;
  }
  function series(s) {
    var o = { label: s.name, stroke: s.color, width: 1.5, spanGaps: true, points: { show: !!s.dots, size: 5, fill: s.color } };
    if (s.kind === "scatter") {
      o.paths = function () { return null; };
      o.points = { show: true, size: 4, space: 0, width: 0, stroke: s.color, fill: s.color };
    } else if (s.kind === "step") {
      o.paths = uPlot.paths.stepped({ align: 1 });
    }
    return o;
  }
  function make(spec, el) {
    var xs = { time: false };
    if (spec.xpct) { xs.distr = 3; xs.log = 10; }
    var xaxis = { label: spec.xlabel };
    if (spec.xpct) { xaxis.splits = decadeSplits; xaxis.values = function (u, vs) { return vs.map(pctLabel); }; }
    var xseries = { label: spec.xlabel };
    if (spec.xpct) xseries.value = function (u, v) { return v == null ? "-" : pctLabel(v); };
    var opts = {
      title: spec.title,
      width: Math.max(320, el.clientWidth || 900),
      height: spec.height,
      scales: {
        x: xs,
        y: spec.ylog ? { distr: 3, log: 10 } :
          { range: function (u, lo, hi) { if (hi == null || !isFinite(hi)) return [0, 1]; return [Math.min(0, lo), hi > 0 ? hi * 1.05 : 1]; } }
      },
      axes: [xaxis, { label: spec.ylabel, size: 60 }],
      series: [xseries].concat(spec.series.map(series)),
      cursor: { drag: { x: true, y: false }, dataIdx: nearest },
      legend: { live: true }
    };
    if (spec.xmin != null && spec.xmax != null) {
      // Start on the shared time axis; zooming and double-click work as usual.
      opts.hooks = { ready: [function (u) { u.setScale("x", { min: spec.xmin, max: spec.xmax }); }] };
    }
    return new uPlot(opts, spec.data, el);
  }
  var plots = [];
  (window.LOADLAB_CHARTS || []).forEach(function (spec, i) {
    var el = document.getElementById("chart-" + i);
    if (el) plots.push([make(spec, el), el]);
  });
  function fit() {
    plots.forEach(function (p) { if (p[1].clientWidth > 0) p[0].setSize({ width: Math.max(320, p[1].clientWidth), height: p[0].height }); });
  }
  window.addEventListener("resize", fit);
  // A step opened (its charts were laid out while closed) fits its charts;
  // printing opens every step, so the PDF holds the whole report.
  document.addEventListener("toggle", fit, true);
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
    fit();
  });
  window.LOADLAB_PLOTS = plots.map(function (p) { return p[0]; });
})();
`

// pageCSS styles the page around the charts.
const pageCSS = `
body { font-family: Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1100px; padding: 0 16px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
pre { background: #f6f8fa; padding: 10px; overflow-x: auto; font-size: 12px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.chart { margin: 16px 0 28px; overflow-x: auto; }
.tw { overflow-x: auto; max-width: 100%; }
details.step > summary { cursor: pointer; }
details.step > summary h2 { display: inline; }
@media print { details.step::details-content { content-visibility: visible; display: block; } }
.hint { color: #777; font-size: 12px; }
.side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; align-items: start; }
.side pre { margin: 16px 0; }
@media (max-width: 900px) { .side { grid-template-columns: minmax(0, 1fr); } }
.u-legend { font-size: 12px; }
`
