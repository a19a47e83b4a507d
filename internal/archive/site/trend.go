package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// Change is one change point of a trend series: the figure moved from
// Before to After at the point Index (the first point after the change).
type Change struct {
	Index         int
	Before, After float64 // the figure's level on each side, in the metric's unit (ms, %, /s)
	Lo, Hi        float64 // 95% confidence interval of After/Before - 1; NaN when unknown
	Worse         bool    // the change makes the figure worse
}

// ChangeFinder finds the change points of a series: points ordered as
// the trend orders them, values their metric in its unit.
type ChangeFinder func(ctx context.Context, points []archive.Point, metric string, values []float64) ([]Change, error)

// metrics of the trend page: the figure, its unit, whether higher is
// worse.
var trendMetrics = []struct {
	Name, Unit  string
	HigherWorse bool
	Value       func(archive.Figures) float64
}{
	{"p50", "ms", true, func(f archive.Figures) float64 { return ms(f.Latencies.P50) }},
	{"p90", "ms", true, func(f archive.Figures) float64 { return ms(f.Latencies.P90) }},
	{"p95", "ms", true, func(f archive.Figures) float64 { return ms(f.Latencies.P95) }},
	{"p99", "ms", true, func(f archive.Figures) float64 { return ms(f.Latencies.P99) }},
	{"mean", "ms", true, func(f archive.Figures) float64 { return ms(f.Latencies.Mean) }},
	{"max", "ms", true, func(f archive.Figures) float64 { return ms(f.Latencies.Max) }},
	{"success", "%", false, func(f archive.Figures) float64 { return 100 * f.Success }},
	{"throughput", "/s", false, func(f archive.Figures) float64 { return f.Throughput }},
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// maxTable is the number of points up to which the trend page lists
// every point under the chart.
const maxTable = 300

type trendQuery struct {
	By, Metric, Scenario, Name string
	Labels                     map[string]string
}

func parseTrendQuery(q url.Values) (trendQuery, int, error) {
	tq := trendQuery{By: strings.TrimSpace(q.Get("by")), Metric: q.Get("metric"), Scenario: q.Get("scenario"), Name: strings.TrimSpace(q.Get("name"))}
	if tq.Metric == "" {
		tq.Metric = "p99"
	}
	mi := -1
	var names []string
	for i, m := range trendMetrics {
		names = append(names, m.Name)
		if m.Name == tq.Metric {
			mi = i
		}
	}
	if mi < 0 {
		return tq, 0, badinput.Field("metric", "unknown metric %q (want %s)", tq.Metric, strings.Join(names, ", "))
	}
	var err error
	tq.Labels, err = parseLabels(q)
	return tq, mi, err
}

// orderPoints orders points by the by label's value (numbers as numbers,
// so build 10 follows build 9), ties and no label by start time; points
// without the label are left out.
func orderPoints(pts []archive.Point, by string) []archive.Point {
	var out []archive.Point
	for _, p := range pts {
		if _, ok := p.Labels[by]; by == "" || ok {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if by != "" {
			a, b := out[i].Labels[by], out[j].Labels[by]
			if c := naturalCompare(a, b); c != 0 {
				return c < 0
			}
		}
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.Before(out[j].Started)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// naturalCompare orders strings with their runs of digits compared as
// numbers: "v2" < "v10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

var trendFormTmpl = template.Must(template.New("trendform").Parse(`<form class="filter" method="get" action="/trend">
<label>order by label<input type="text" name="by" value="{{.Q.By}}" placeholder="e.g. build (empty: by time)"></label>
<label>figure<select name="metric">{{range .Metrics}}<option{{if eq . $.Q.Metric}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<label>scenario<input type="text" name="scenario" value="{{.Q.Scenario}}" placeholder="every scenario"></label>
<label>name contains<input type="search" name="name" value="{{.Q.Name}}"></label>
<label>labels (key=value …)<input type="search" name="label" value="{{.LabelText}}"></label>
<button type="submit">Draw</button></form>`))

var trendChartTmpl = template.Must(template.New("trendchart").Parse(`<div class="chart" id="trend"></div>
<p class="hint">Each dot is a run: hover to read it, click to open it. Dashed lines mark change points; the grey line is the level between them.</p>
{{with .Changes}}<h3>Change points</h3><ul class="findings">{{range .}}<li{{if .Worse}} class="bad"{{end}}>{{.Text}} <a href="{{.URL}}">first run after it</a></li>{{end}}</ul>
{{else}}{{if .Marked}}<p class="good">No change point: the series holds steady.</p>{{end}}{{end}}
{{with .Rows}}<div class="tw"><table class="points"><thead><tr><th>#</th><th>{{$.By}}</th><th>run</th><th>started</th><th>{{$.Metric}}</th></tr></thead>
<tbody>{{range .}}<tr{{if .Change}} class="bad"{{end}}><td>{{.N}}</td><td>{{.Label}}</td><td><a href="{{.URL}}">{{.Name}}</a> <code>{{.ID}}</code></td><td>{{.Started}}</td><td>{{.Value}}</td></tr>
{{end}}</tbody></table></div>{{end}}`))

// trend serves one figure across runs ordered by a label, with change
// points marked.
func (h *Handler) trend(w http.ResponseWriter, r *http.Request) {
	tq, mi, err := parseTrendQuery(r.URL.Query())
	if err != nil {
		failure(w, err)
		return
	}
	m := trendMetrics[mi]
	var names []string
	for _, tm := range trendMetrics {
		names = append(names, tm.Name)
	}
	form, err := fragment(trendFormTmpl, map[string]any{"Q": tq, "Metrics": names, "LabelText": joinLabels(tq.Labels)})
	if err != nil {
		failure(w, err)
		return
	}
	ctx := r.Context()
	all, err := h.store.Points(ctx, archive.Filter{Name: tq.Name, Labels: tq.Labels}, tq.Scenario)
	if err != nil {
		failure(w, err)
		return
	}
	pts := orderPoints(all, tq.By)
	values := make([]float64, len(pts))
	for i, p := range pts {
		values[i] = m.Value(p.Figures)
	}
	var changes []Change
	if h.opts.Changes != nil && len(pts) > 0 {
		if changes, err = h.opts.Changes(ctx, pts, tq.Metric, values); err != nil {
			failure(w, err)
			return
		}
	}
	title := m.Name + " across runs"
	if tq.By != "" {
		title += " by " + tq.By
	}
	if tq.Scenario != "" {
		title += ", " + tq.Scenario
	}
	p := newPage("Trend: " + title)
	p.Sections = []web.Section{{HTML: form}}
	if len(pts) == 0 {
		why := "No run matches."
		if tq.By != "" && len(all) > 0 {
			why = fmt.Sprintf("None of the %d runs matching has the label %q.", len(all), tq.By)
		}
		p.Sections = append(p.Sections, web.Section{Text: why})
		writePage(w, http.StatusOK, p)
		return
	}
	body, script, err := trendBody(tq, m.Name, m.Unit, pts, values, changes, h.opts.Changes != nil)
	if err != nil {
		failure(w, err)
		return
	}
	p.Intro = fmt.Sprintf("%d runs, ordered by %s.", len(pts), orText(tq.By, "start time"))
	p.Sections = append(p.Sections, web.Section{Title: title, HTML: body})
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
	Title   string    `json:"title"`
	Unit    string    `json:"unit"`
	Labels  []string  `json:"labels"` // x tick of each point: its label value or start time
	Names   []string  `json:"names"`
	Links   []string  `json:"links"`
	Values  []float64 `json:"values"`
	Level   []float64 `json:"level"`   // the level between change points
	Changes []int     `json:"changes"` // indexes of the first points after each change
}

func trendBody(tq trendQuery, metric, unit string, pts []archive.Point, values []float64, changes []Change, marked bool) (template.HTML, string, error) {
	d := trendData{Title: metric + " (" + unit + ")", Unit: unit, Values: values, Changes: []int{}}
	tick := func(p archive.Point) string {
		if tq.By != "" {
			return p.Labels[tq.By]
		}
		return p.Started.UTC().Format("2006-01-02 15:04")
	}
	for _, p := range pts {
		d.Labels = append(d.Labels, tick(p))
		d.Names = append(d.Names, p.Name)
		d.Links = append(d.Links, runURL(p.ID))
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Index < changes[j].Index })
	d.Level = levels(values, changes)
	type changeView struct {
		Text, URL string
		Worse     bool
	}
	var cv []changeView
	isChange := map[int]bool{}
	for _, c := range changes {
		if c.Index <= 0 || c.Index >= len(pts) {
			continue
		}
		d.Changes = append(d.Changes, c.Index)
		isChange[c.Index] = true
		text := fmt.Sprintf("At %s: %s %.4g → %.4g %s", tick(pts[c.Index]), metric, c.Before, c.After, unit)
		if c.Before != 0 {
			text += fmt.Sprintf(" (%+.1f%%)", 100*(c.After-c.Before)/c.Before)
		}
		if !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) {
			text += fmt.Sprintf(", 95%% CI [%+.1f%%, %+.1f%%]", 100*c.Lo, 100*c.Hi)
		}
		if c.Worse {
			text += ": worse"
		}
		cv = append(cv, changeView{Text: text + ".", URL: runURL(pts[c.Index].ID), Worse: c.Worse})
	}
	type rowView struct {
		N                                    int
		Label, URL, Name, ID, Started, Value string
		Change                               bool
	}
	var rows []rowView
	if len(pts) <= maxTable {
		for i, p := range pts {
			rows = append(rows, rowView{N: i + 1, Label: tick(p), URL: runURL(p.ID), Name: p.Name, ID: p.ID,
				Started: fmtTime(p.Started), Value: fmt.Sprintf("%.4g %s", values[i], unit), Change: isChange[i]})
		}
	}
	by := tq.By
	if by == "" {
		by = "started"
	}
	body, err := fragment(trendChartTmpl, map[string]any{"Changes": cv, "Marked": marked, "Rows": rows, "By": by, "Metric": metric})
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
// points around it.
func levels(values []float64, changes []Change) []float64 {
	out := make([]float64, len(values))
	start := 0
	cuts := []int{}
	for _, c := range changes {
		if c.Index > 0 && c.Index < len(values) {
			cuts = append(cuts, c.Index)
		}
	}
	cuts = append(cuts, len(values))
	for _, end := range cuts {
		if end <= start {
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
    ctx.restore();
  }] } };
  var opts = {
    title: d.title,
    width: Math.max(300, el.clientWidth || 900),
    height: 360,
    plugins: [marks],
    scales: { x: { time: false, range: function () { return [-0.5, d.labels.length - 0.5]; } },
              y: { range: function (u, lo, hi) { return [Math.min(0, lo), hi > 0 ? hi * 1.08 : 1]; } } },
    axes: [{ splits: splits, values: tick, size: 50 }, { label: d.unit, size: 60 }],
    series: [
      { label: "run", value: function (u, v) { return v == null ? "-" : d.labels[v] + " · " + d.names[v]; } },
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
