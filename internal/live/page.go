package live

import (
	"html/template"
	"net/http"

	"github.com/loadlab/loadlab/internal/plot/web"
)

var pageTmpl = template.Must(template.New("live").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loadlab live</title>
<style>{{.UPlotCSS}}</style>
<style>{{.PageCSS}}</style>
<style>.kpis{display:flex;flex-wrap:wrap;gap:.5em 1.5em;margin:.5em 0}.kpis b{font-variant-numeric:tabular-nums}#status{color:#555}</style>
</head>
<body>
<h1>loadlab live</h1>
<p id="status">connecting…</p>
<p id="step"></p>
<div class="kpis">
<span>sent/s <b id="k-sent">-</b></span>
<span>answered/s <b id="k-answered">-</b></span>
<span>success <b id="k-success">-</b></span>
<span>p50 <b id="k-p50">-</b></span>
<span>p99 <b id="k-p99">-</b></span>
<span>in flight <b id="k-inflight">-</b></span>
<span>lag max <b id="k-lag">-</b></span>
<span>requests <b id="k-total">0</b></span>
</div>
<section><h2>Rate</h2><div class="chart" id="c-rate"></div></section>
<section><h2>Latency per second (from the due time)</h2><div class="chart" id="c-lat"></div></section>
<section><h2>Status codes per second</h2><div class="chart" id="c-codes"></div></section>
<section><h2>In flight and schedule lag</h2><div class="chart" id="c-load"></div></section>
<section id="s-metrics" hidden><h2>Server metrics</h2><div class="chart" id="c-metrics"></div></section>
<script>{{.UPlotJS}}</script>
<script>{{.JS}}</script>
</body>
</html>
`))

// liveJS keeps the page's charts in step with the event stream: each
// point appends a column, charts are redrawn with setData.
const liveJS = `(function () {
  "use strict";
  var token = new URLSearchParams(location.search).get("token");
  var url = "events" + (token ? "?token=" + encodeURIComponent(token) : "");
  var pts = [], total = 0, codes = [], mnames = [], charts = {};
  function width() { return Math.max(300, Math.min(960, document.body.clientWidth - 20)); }
  function chart(id, title, series, ylabel) {
    var opts = { width: width(), height: 220, title: title, scales: { x: { time: false } },
      axes: [{ label: "seconds" }, { label: ylabel }],
      series: [{ label: "t" }].concat(series.map(function (s) { return { label: s, width: 1.5, stroke: color(s) }; })) };
    var el = document.getElementById(id);
    el.innerHTML = "";
    return new uPlot(opts, [[]].concat(series.map(function () { return []; })), el);
  }
  var palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];
  var known = {};
  function color(s) {
    if (!(s in known)) known[s] = palette[Object.keys(known).length % palette.length];
    return known[s];
  }
  function col(f) { return pts.map(f); }
  function fmt(ms) { return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(1) + " ms"; }
  function rebuild() {
    charts.rate = chart("c-rate", "requests per second", ["sent", "answered", "success"], "req/s");
    charts.lat = chart("c-lat", "latency per second", ["p50", "p90", "p99", "max"], "ms");
    charts.codes = chart("c-codes", "status codes per second", codes, "req/s");
    charts.load = chart("c-load", "in flight and lag", ["in flight", "lag max (ms)"], "");
    if (mnames.length) {
      document.getElementById("s-metrics").hidden = false;
      charts.metrics = chart("c-metrics", "sampled server metrics", mnames, "");
    }
  }
  function redraw() {
    var t = col(function (p) { return p.t; });
    charts.rate.setData([t, col(function (p) { return p.sent; }), col(function (p) { return p.answered; }), col(function (p) { return p.ok; })]);
    charts.lat.setData([t, col(function (p) { return p.p50; }), col(function (p) { return p.p90; }), col(function (p) { return p.p99; }), col(function (p) { return p.max; })]);
    charts.codes.setData([t].concat(codes.map(function (c) { return col(function (p) { return p.codes[c] || 0; }); })));
    charts.load.setData([t, col(function (p) { return p.in_flight; }), col(function (p) { return p.lag_max; })]);
    if (charts.metrics) charts.metrics.setData([t].concat(mnames.map(function (m) { return col(function (p) { return p.metrics ? p.metrics[m] : null; }); })));
  }
  function show(p) {
    document.getElementById("k-sent").textContent = p.sent;
    document.getElementById("k-answered").textContent = p.answered;
    document.getElementById("k-success").textContent = p.sent ? (100 * p.ok / p.sent).toFixed(2) + "%" : "-";
    document.getElementById("k-p50").textContent = fmt(p.p50);
    document.getElementById("k-p99").textContent = fmt(p.p99);
    document.getElementById("k-inflight").textContent = p.in_flight;
    document.getElementById("k-lag").textContent = fmt(p.lag_max);
    document.getElementById("k-total").textContent = total;
    var s = p.step;
    document.getElementById("step").textContent = s ? "step " + s.index + "/" + s.of + ": " + s.name + " at " + s.rate + (s.configuration ? ", " + s.configuration : "") + (s.ends ? " (ends " + new Date(s.ends).toLocaleTimeString() + ")" : "") : "";
  }
  rebuild();
  window.addEventListener("resize", function () { rebuild(); redraw(); });
  var es = new EventSource(url);
  es.onopen = function () { document.getElementById("status").textContent = "live: a point a second"; };
  es.onerror = function () { document.getElementById("status").textContent = "reconnecting… (the run may have ended)"; };
  es.onmessage = function (ev) {
    var p = JSON.parse(ev.data);
    if (pts.length && p.id <= pts[pts.length - 1].id) return;
    pts.push(p);
    if (pts.length > 3600) pts.shift();
    total += p.sent;
    var grew = false;
    Object.keys(p.codes || {}).forEach(function (c) { if (codes.indexOf(c) < 0) { codes.push(c); codes.sort(); grew = true; } });
    Object.keys(p.metrics || {}).forEach(function (m) { if (mnames.indexOf(m) < 0) { mnames.push(m); grew = true; } });
    if (grew) rebuild();
    redraw();
    show(p);
    if (p.ended) { document.getElementById("status").textContent = "the run has ended"; es.close(); }
  };
})();`

// page serves the live view.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if !s.authorized(w, r) {
		return
	}
	a := web.SharedAssets()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = pageTmpl.Execute(w, map[string]any{
		"UPlotCSS": template.CSS(a.UPlotCSS), "PageCSS": template.CSS(a.PageCSS),
		"UPlotJS": template.JS(a.UPlotJS), "JS": template.JS(liveJS),
	})
}
