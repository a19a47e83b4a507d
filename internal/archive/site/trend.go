package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// maxTable is the number of points up to which the trend page lists
// every point under the chart.
const maxTable = 300

// trendQuery is the trend page's query.
type trendQuery struct {
	By, Scenario string
	Metric       trend.Metric
	Labels       map[string]string
}

func parseTrendQuery(q url.Values) (trendQuery, error) {
	tq := trendQuery{By: strings.TrimSpace(q.Get("by")), Scenario: q.Get("scenario"), Metric: trend.P99}
	if s := q.Get("metric"); s != "" {
		m, err := trend.ParseMetric(s)
		var be *badinput.Error
		if errors.As(err, &be) {
			return tq, &badinput.Error{Field: "metric", Msg: be.Msg}
		}
		tq.Metric = m
	}
	var err error
	tq.Labels, err = parseLabels(q)
	return tq, err
}

var trendFormTmpl = template.Must(template.New("trendform").Parse(`<form class="filter" method="get" action="/trend">
<label>order by label<input type="text" name="by" value="{{.Q.By}}" placeholder="e.g. build (empty: by time)"></label>
<label>figure<select name="metric">{{range .Metrics}}<option{{if eq . (printf "%s" $.Q.Metric)}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>scenario<input type="text" name="scenario" value="{{.Q.Scenario}}" placeholder="every scenario"></label>
<label>labels (key=value …)<input type="search" name="label" value="{{.LabelText}}"></label>
<button type="submit">Draw</button></form>`))

var trendChartTmpl = template.Must(template.New("trendchart").Parse(`<div class="chart" id="trend"></div>
<p class="hint">Each dot is a run: hover to read it, click to open it. Dashed red lines mark change points, solid green lines accepted runs (the baseline from there on); the grey line is the level between them; an orange ring marks a noisy run (its machine disturbed it: weaker evidence).</p>
{{with .Gate}}<p class="{{if .Regression}}bad{{else}}hint{{end}}">Newest: {{.Text}}.</p>{{end}}
{{with .Accepted}}<h3>Accepted</h3><ul class="findings">{{range .}}<li><a href="{{.URL}}">run {{.ID}}</a> accepted {{.At}}{{with .Note}}: {{.}}{{end}}</li>{{end}}</ul>{{end}}
{{with .Changes}}<h3>Change points</h3><ul class="findings">{{range .}}<li{{if .Worse}} class="bad"{{end}}>{{.Text}} <a href="{{.URL}}">first run after it</a></li>{{end}}</ul>
{{else}}{{if .Marked}}<p class="good">No change point: the series holds steady.</p>{{end}}{{end}}
{{with .Rows}}<div class="tw"><table class="points"><thead><tr><th>#</th><th>{{$.By}}</th><th>run</th><th>started</th><th>{{$.Metric}}</th></tr></thead>
<tbody>{{range .}}<tr{{if .Change}} class="bad"{{end}}><td>{{.N}}</td><td>{{.Label}}{{with .Source}} <a class="source" href="{{.}}" rel="noopener noreferrer" title="where this value comes from">↗</a>{{end}}{{if .Accepted}} (accepted){{end}}</td><td><a href="{{.URL}}">{{.Name}}</a> <code>{{.ID}}</code>{{with .Noisy}} <span class="noisy" title="noisy: {{.}}">noisy</span>{{end}}</td><td>{{.Started}}</td><td>{{.Value}}</td></tr>
{{end}}</tbody></table></div>{{end}}`))

// trend serves one figure across runs ordered by a label, with the
// change points `loadlab archive trend` finds (package archive/trend).
func (h *Handler) trend(w http.ResponseWriter, r *http.Request) {
	tq, err := parseTrendQuery(r.URL.Query())
	if err != nil {
		failure(w, err)
		return
	}
	var names []string
	for _, m := range trend.Metrics {
		names = append(names, string(m))
	}
	form, err := fragment(trendFormTmpl, map[string]any{"Q": tq, "Metrics": names, "LabelText": joinLabels(tq.Labels)})
	if err != nil {
		failure(w, err)
		return
	}
	t, pending, err := h.trends.get(r.Context(), h.store, trend.Options{Metric: tq.Metric, By: tq.By, Scenario: tq.Scenario, Labels: tq.Labels})
	if err != nil {
		failure(w, err)
		return
	}
	title := string(tq.Metric) + " across runs"
	if tq.By != "" {
		title += " by " + tq.By
	}
	if tq.Scenario != "" {
		title += ", " + tq.Scenario
	}
	p := newPage("Trend: " + title)
	p.Sections = []web.Section{{HTML: form}}
	if pending {
		// The page reloads itself until the trend is ready.
		w.Header().Set("Refresh", "5")
		p.Sections = append(p.Sections, web.Section{HTML: `<p class="empty">Finding the change points: each candidate is judged against the runs' latency distributions, which takes a while over many runs. This page reloads by itself until they are ready.</p>`})
		writePage(w, http.StatusOK, p)
		return
	}
	if len(t.Points) == 0 {
		why := "No run matches."
		if tq.By != "" {
			why = fmt.Sprintf("No run matching has the label %q.", tq.By)
		}
		p.Sections = append(p.Sections, web.Section{HTML: template.HTML(`<p class="empty">` + template.HTMLEscapeString(why) + `</p>`)})
		writePage(w, http.StatusOK, p)
		return
	}
	body, script, err := trendBody(t, h.sourceURL)
	if err != nil {
		failure(w, err)
		return
	}
	p.Intro = fmt.Sprintf("%d runs, ordered by %s.", len(t.Points), orText(tq.By, "start time"))
	p.Sections = append(p.Sections, web.Section{Title: title, HTML: body},
		web.Section{Title: "Method", HTML: template.HTML(`<p class="hint">` + template.HTMLEscapeString(t.Method) + `</p>`)})
	p.Script = script
	writePage(w, http.StatusOK, p)
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// trendData is what the trend chart's script draws.
type trendData struct {
	Title    string    `json:"title"`
	Unit     string    `json:"unit"`
	Labels   []string  `json:"labels"` // x tick of each point: its label value or start time
	Names    []string  `json:"names"`
	Links    []string  `json:"links"`
	Values   []float64 `json:"values"`
	Level    []float64 `json:"level"`    // the level between change points
	Changes  []int     `json:"changes"`  // indexes of the first points after each change
	Accepted []int     `json:"accepted"` // indexes of the accepted runs
	Noisy    []bool    `json:"noisy"`    // the runs the machine disturbed (trend.Point.Noisy)
	Log      bool      `json:"log"`      // a log scale: the latencies span more than plot.LogSpread
}

func trendBody(t *trend.Trend, source func(key, value string) string) (template.HTML, string, error) {
	d := trendData{Title: string(t.Metric) + " (" + t.Unit + ")", Unit: t.Unit, Changes: []int{}, Accepted: []int{}}
	tick := func(p trend.Point) string {
		if t.By != "" {
			return p.Label
		}
		return p.Started.UTC().Format("2006-01-02 15:04")
	}
	for i, p := range t.Points {
		if p.Accepted {
			d.Accepted = append(d.Accepted, i)
		}
		d.Labels = append(d.Labels, tick(p))
		d.Names = append(d.Names, p.Name)
		d.Links = append(d.Links, runURL(p.ID))
		d.Values = append(d.Values, float64(p.Value))
		d.Noisy = append(d.Noisy, p.Noisy != "")
	}
	var cuts []int
	type changeView struct {
		Text, URL string
		Worse     bool
	}
	var cv []changeView
	for _, c := range t.Changes {
		if c.Index <= 0 || c.Index >= len(t.Points) {
			continue
		}
		cuts = append(cuts, c.Index)
		cv = append(cv, changeView{Text: trend.Describe(t, c) + ".", URL: runURL(c.ID), Worse: c.Worse})
	}
	sort.Ints(cuts)
	d.Changes = append(d.Changes, cuts...)
	d.Level = levels(d.Values, cuts)
	if t.Unit == "ms" {
		lo, hi := math.Inf(1), 0.0
		for _, v := range d.Values {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		d.Log = hi/lo > plot.LogSpread
	}
	type rowView struct {
		N                                                   int
		Label, Source, URL, Name, ID, Started, Value, Noisy string
		Change, Accepted                                    bool
	}
	var rows []rowView
	if len(t.Points) <= maxTable {
		for i, p := range t.Points {
			row := rowView{N: i + 1, Label: tick(p), URL: runURL(p.ID), Name: p.Name, ID: p.ID,
				Started: fmtTime(p.Started), Value: fmt.Sprintf("%.4g %s", float64(p.Value), t.Unit), Change: p.Change, Accepted: p.Accepted, Noisy: p.Noisy}
			if t.By != "" {
				row.Source = source(t.By, p.Label)
			}
			rows = append(rows, row)
		}
	}
	by := t.By
	if by == "" {
		by = "started"
	}
	type acceptedView struct{ ID, URL, At, Note string }
	var acc []acceptedView
	for _, a := range t.Accepted {
		acc = append(acc, acceptedView{ID: a.RunID, URL: runURL(a.RunID), At: fmtTime(a.At), Note: a.Note})
	}
	body, err := fragment(trendChartTmpl, map[string]any{"Changes": cv, "Marked": true, "Rows": rows, "By": by, "Metric": string(t.Metric),
		"Gate": t.Gate, "Accepted": acc})
	if err != nil {
		return "", "", err
	}
	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(d); err != nil { // escapes <, > and &
		return "", "", err
	}
	return body, "window.LOADLAB_TREND = " + strings.TrimSpace(js.String()) + ";\n" + trendJS, nil
}

// levels is, for each point, the mean of the values between the change
// points (cuts: the first point after each change) around it.
func levels(values []float64, cuts []int) []float64 {
	out := make([]float64, len(values))
	start := 0
	for _, end := range append(cuts, len(values)) {
		if end <= start || end > len(values) {
			continue
		}
		sum := 0.0
		for _, v := range values[start:end] {
			sum += v
		}
		for i := start; i < end; i++ {
			out[i] = sum / float64(end-start)
		}
		start = end
	}
	return out
}

// trendJS draws the trend chart with the vendored uPlot: one dot per run
// (x is its position in the order, labelled by its label value), the level
// between change points, a dashed line at each change, and a click opening
// the run under the cursor.
const trendJS = `(function () {
  "use strict";
  var d = window.LOADLAB_TREND, el = document.getElementById("trend");
  if (!d || !el) return;
  var xs = d.values.map(function (_, i) { return i; });
  function tick(u, vals) { return vals.map(function (v) { return Number.isInteger(v) && v >= 0 && v < d.labels.length ? d.labels[v] : ""; }); }
  function splits(u, ax, min, max) {
    var n = d.labels.length, w = u.bbox.width / (window.devicePixelRatio || 1);
    var step = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(w / 90))));
    var out = [];
    for (var i = Math.max(0, Math.ceil(min)); i <= Math.min(n - 1, max); i += step) out.push(i);
    return out;
  }
  var marks = { hooks: { draw: [function (u) {
    var ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = "#d62728";
    ctx.lineWidth = 2 * (window.devicePixelRatio || 1);
    ctx.setLineDash([6, 4]);
    d.changes.forEach(function (i) {
      var x = u.valToPos(i - 0.5, "x", true);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
    });
    ctx.strokeStyle = "#2ca02c";
    ctx.setLineDash([]);
    (d.accepted || []).forEach(function (i) {
      var x = u.valToPos(i, "x", true);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
    });
    ctx.restore();
    ctx.save();
    ctx.strokeStyle = "#a05a00";
    ctx.lineWidth = 2 * (window.devicePixelRatio || 1);
    (d.noisy || []).forEach(function (noisy, i) {
      if (!noisy) return;
      ctx.beginPath();
      ctx.arc(u.valToPos(i, "x", true), u.valToPos(d.values[i], "y", true), 8 * (window.devicePixelRatio || 1), 0, 2 * Math.PI);
      ctx.stroke();
    });
    ctx.restore();
  }] } };
  var opts = {
    title: d.title,
    width: Math.max(300, el.clientWidth || 900),
    height: 360,
    plugins: [marks],
    scales: { x: { time: false, range: function () { return [-0.5, d.labels.length - 0.5]; } },
              y: d.log ? { distr: 3, log: 10 } : { range: function (u, lo, hi) { return [Math.min(0, lo), hi > 0 ? hi * 1.08 : 1]; } } },
    axes: [{ splits: splits, values: tick, size: 50 }, { label: d.log ? d.unit + " (log scale)" : d.unit, size: 60 }],
    series: [
      { label: "run", value: function (u, v) { return v == null ? "-" : d.labels[v] + " · " + d.names[v] + (d.noisy && d.noisy[v] ? " · noisy" : ""); } },
      { label: d.title, stroke: "#1f77b4", width: 1.5, points: { show: true, size: 7, fill: "#1f77b4" } },
      { label: "level", stroke: "#999", width: 2, points: { show: false } }
    ],
    cursor: { points: { size: 10 } },
    legend: { live: true }
  };
  var u = new uPlot(opts, [xs, d.values, d.level], el);
  u.over.addEventListener("click", function () {
    var i = u.cursor.idx;
    if (i != null && d.links[i]) location.href = d.links[i];
  });
  u.over.style.cursor = "pointer";
  window.addEventListener("resize", function () { u.setSize({ width: Math.max(300, el.clientWidth), height: 360 }); });
  window.LOADLAB_PLOTS = (window.LOADLAB_PLOTS || []).concat([u]);
})();`
