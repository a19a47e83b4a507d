package live

import (
	"html/template"
	"net/http"

	"github.com/loadlab/loadlab/internal/plot"
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
<span>lag p50 <b id="k-lagp50">-</b></span>
<span>lag max <b id="k-lag">-</b></span>
<span>pacer <b id="k-pacer">-</b></span>
<span>requests <b id="k-total">0</b></span>
<span>time left <b id="k-left">-</b></span>
</div>
<p class="hint">A point a second. Latency, status codes and lag are those of the requests answered in that second, latency from the due time; the last hour is kept. Lag is the generator's own delay (sent − due), part of the latency from due: the latency chart shows its median beside the latency's.</p>
<section><h2>Rate</h2><div class="chart" id="c-rate"></div></section>
<section><h2>Latency per second (from the due time)</h2><div class="chart" id="c-lat"></div></section>
<section><h2>Status codes per second</h2><div class="chart" id="c-codes"></div></section>
<section><h2>In flight and schedule lag</h2><div class="chart" id="c-load"></div></section>
<section id="s-metrics" hidden><h2>Sampled server metrics</h2><div id="c-metrics"></div></section>
<script>{{.UPlotJS}}</script>
<script>var statusShades = {{.Shades}};</script>
<script>{{.JS}}</script>
</body>
</html>
`))

// liveJS keeps the page's charts in step with the event stream: each
// point appends a column and the charts are redrawn with setData; the
// sampled metrics get a chart per unit (counts, per second, CPU %, MiB).
// EventSource reconnects by itself with Last-Event-ID, so the server
// sends only the points the page lacks; a point already held is skipped.
const liveJS = `(function () {
  "use strict";
  var token = new URLSearchParams(location.search).get("token");
  var url = "events" + (token ? "?token=" + encodeURIComponent(token) : "");
  var pts = [], total = 0, codes = [], mnames = [], units = {}, charts = {}, groups = [];
  function width() { return Math.max(300, Math.min(1060, document.body.clientWidth - 20)); }
  var palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var known = {};
  function color(s) {
    if (!(s in known)) known[s] = palette[Object.keys(known).length % palette.length];
    return known[s];
  }
  // A status code's colour is a shade of its class's hue (plot.ClassShades,
  // as the report's charts): 5xx reds, 4xx oranges, 2xx greens; dropped grey.
  var byClass = {}, codeColors = {};
  function codeColor(c) {
    if (c === "dropped") return "#7f7f7f";
    if (!(c in codeColors)) {
      var n = parseInt(c, 10), cls = "error";
      if (n >= 100 && n < 300) cls = "2xx"; else if (n >= 300 && n < 400) cls = "3xx";
      else if (n >= 400 && n < 500) cls = "4xx"; else if (n >= 500 && n < 600) cls = "5xx";
      var sh = statusShades[cls], k = byClass[cls] || 0;
      byClass[cls] = k + 1;
      codeColors[c] = sh[k % sh.length];
    }
    return codeColors[c];
  }
  function chart(el, title, series, ylabel, stroke) {
    stroke = stroke || color;
    var opts = { width: width(), height: 220, title: title, scales: { x: { time: false } },
      axes: [{ label: "seconds" }, { label: ylabel, size: 60 }],
      series: [{ label: "t" }].concat(series.map(function (s) { return { label: s, width: 1.5, stroke: stroke(s), spanGaps: true }; })) };
    el.innerHTML = "";
    return new uPlot(opts, [[]].concat(series.map(function () { return []; })), el);
  }
  function unitTitle(u) { return u === "" ? "count" : u === "/s" ? "per second" : u; }
  function col(f) { return pts.map(f); }
  function fmt(ms) { return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(1) + " ms"; }
  function fmtFine(ms) { return ms < 1 ? (ms * 1000).toFixed(0) + " µs" : fmt(ms); }
  function fmtLeft(s) { s = Math.round(s); return Math.floor(s / 60) + ":" + ("0" + (s % 60)).slice(-2); }
  function rebuild() {
    charts.rate = chart(document.getElementById("c-rate"), "requests per second", ["sent", "answered", "success"], "req/s");
    charts.lat = chart(document.getElementById("c-lat"), "latency per second", ["p50", "p90", "p99", "max", "lag p50"], "ms");
    charts.codes = chart(document.getElementById("c-codes"), "status codes per second", codes, "req/s", codeColor);
    charts.load = chart(document.getElementById("c-load"), "in flight and lag", ["in flight", "lag max (ms)"], "");
    var byUnit = {};
    mnames.forEach(function (m) { var u = units[m] || ""; (byUnit[u] = byUnit[u] || []).push(m); });
    var box = document.getElementById("c-metrics");
    box.innerHTML = "";
    groups = Object.keys(byUnit).sort().map(function (u) {
      var el = document.createElement("div");
      el.className = "chart";
      box.appendChild(el);
      return { names: byUnit[u], plot: chart(el, "sampled: " + unitTitle(u), byUnit[u], unitTitle(u)) };
    });
    document.getElementById("s-metrics").hidden = groups.length === 0;
  }
  function redraw() {
    var t = col(function (p) { return p.t; });
    charts.rate.setData([t, col(function (p) { return p.sent; }), col(function (p) { return p.answered; }), col(function (p) { return p.ok; })]);
    charts.lat.setData([t, col(function (p) { return p.p50; }), col(function (p) { return p.p90; }), col(function (p) { return p.p99; }), col(function (p) { return p.max; }), col(function (p) { return p.lag_p50; })]);
    charts.codes.setData([t].concat(codes.map(function (c) { return col(function (p) { return p.codes[c] || 0; }); })));
    charts.load.setData([t, col(function (p) { return p.in_flight; }), col(function (p) { return p.lag_max; })]);
    groups.forEach(function (g) {
      g.plot.setData([t].concat(g.names.map(function (m) { return col(function (p) { return p.metrics && m in p.metrics ? p.metrics[m] : null; }); })));
    });
  }
  function show(p) {
    document.getElementById("k-sent").textContent = p.sent;
    document.getElementById("k-answered").textContent = p.answered;
    var done = 0;
    Object.keys(p.codes || {}).forEach(function (c) { if (c !== "dropped") done += p.codes[c]; });
    document.getElementById("k-success").textContent = done ? (100 * p.ok / done).toFixed(2) + "%" : "-";
    document.getElementById("k-p50").textContent = fmt(p.p50);
    document.getElementById("k-p99").textContent = fmt(p.p99);
    document.getElementById("k-inflight").textContent = p.in_flight;
    document.getElementById("k-lag").textContent = fmt(p.lag_max);
    document.getElementById("k-lagp50").textContent = fmtFine(p.lag_p50 || 0);
    document.getElementById("k-pacer").textContent = p.pacer || "-";
    document.getElementById("k-total").textContent = total;
    var s = p.step;
    document.getElementById("k-left").textContent = s && s.ends ? fmtLeft(s.left || 0) : "-";
    var text = "";
    if (s) {
      text = (s.of ? "step " + s.index + "/" + s.of + ": " : "") + s.name + " at " + s.rate + (s.configuration ? ", " + s.configuration : "");
      if (s.of && !s.ends) text += " (starting its components)";
    }
    document.getElementById("step").textContent = text;
  }
  // showRun puts the whole run's figures in the header once it has ended
  // (the last second alone is partial and misleads).
  function showRun(r) {
    document.getElementById("k-success").textContent = r.requests ? (100 * r.success).toFixed(2) + "%" : "-";
    document.getElementById("k-p50").textContent = fmt(r.p50);
    document.getElementById("k-p99").textContent = fmt(r.p99);
    document.getElementById("k-total").textContent = r.requests + (r.dropped ? " (+" + r.dropped + " dropped)" : "");
    ["k-sent", "k-answered", "k-inflight", "k-left"].forEach(function (id) { document.getElementById(id).textContent = "-"; });
  }
  rebuild();
  window.addEventListener("resize", function () { rebuild(); redraw(); });
  var es = new EventSource(url);
  es.onopen = function () { document.getElementById("status").textContent = "live: a point a second"; };
  es.onerror = function () { if (es.readyState !== 2) document.getElementById("status").textContent = "reconnecting… (the run may have ended)"; };
  es.addEventListener("units", function (ev) {
    var u = JSON.parse(ev.data);
    Object.keys(u).forEach(function (k) { units[k] = u[k]; });
  });
  es.onmessage = function (ev) {
    var p = JSON.parse(ev.data);
    if (pts.length && p.id <= pts[pts.length - 1].id) return;
    pts.push(p);
    if (pts.length > 3600) pts.shift();
    total += p.sent;
    var grew = false;
    Object.keys(p.codes || {}).forEach(function (c) { if (codes.indexOf(c) < 0) { codes.push(c); codes.sort(); grew = true; } });
    Object.keys(p.metrics || {}).forEach(function (m) { if (mnames.indexOf(m) < 0) { mnames.push(m); grew = true; } });
    if (grew) dirty = true;
    if (p.ended) es.close();
    // Draw once for a burst of points (the history on connect), not per point.
    if (!pending) { pending = true; setTimeout(flush, 30); }
  };
  var pending = false, dirty = false;
  function flush() {
    pending = false;
    if (dirty) { dirty = false; rebuild(); }
    redraw();
    var last = pts[pts.length - 1];
    show(last);
    if (last.ended) {
      document.getElementById("status").textContent = "the run has ended: the figures above are the whole run's";
      if (last.run) showRun(last.run);
    }
  }
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
		"UPlotJS": template.JS(a.UPlotJS), "JS": template.JS(liveJS), "Shades": plot.ClassShades(),
	})
}
