package site

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/writeup"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// collapseAfter is the number of steps and scenarios from which a run
// page shows each one's detail closed, to be opened.
const collapseAfter = 6

// sampleChartHeight is the height of a sampled metric's chart: a step
// has several, lower than the latency plots.
const sampleChartHeight = 240

// lookup finds a run by its ID, or by its slug (which ends in the ID).
// canonical is false when it was found by slug.
func (h *Handler) lookup(ctx context.Context, idOrSlug string) (run *archive.Run, canonical bool, err error) {
	run, err = h.store.Get(ctx, idOrSlug)
	if err == nil {
		return run, run.ID == idOrSlug, nil
	}
	if !errors.Is(err, archive.ErrNotFound) {
		return nil, false, err
	}
	if i := strings.LastIndexByte(idOrSlug, '-'); i >= 0 {
		if r, err2 := h.store.Get(ctx, idOrSlug[i+1:]); err2 == nil && r.Slug == idOrSlug {
			return r, false, nil
		}
	}
	return nil, false, fmt.Errorf("no run %q in this archive: %w", idOrSlug, archive.ErrNotFound)
}

// notFound is the page for a run that does not exist.
func notFound(w http.ResponseWriter, err error) {
	p := newPage("Not found")
	p.Intro = err.Error() + "."
	p.Sections = []web.Section{{HTML: `<p><a href="/">Every run</a></p>`}}
	writePage(w, http.StatusNotFound, p)
}

// MaxJSONBytes is the largest stored JSON file (summary.json,
// samples.json) a page reads: the most archive add reads of one to parse.
const MaxJSONBytes = ingest.MaxParsedBytes

// readJSONFile decodes one of the run's stored JSON files; found is false
// when the run has no such file. A file larger than MaxJSONBytes (by its
// recorded size, and as read) is an error, not memory.
func (h *Handler) readJSONFile(ctx context.Context, id, name string, files []archive.File, v any) (found bool, err error) {
	var size int64 = -1
	for _, f := range files {
		if f.Name == name {
			size = f.Size
		}
	}
	if size < 0 {
		return false, nil
	}
	if size > MaxJSONBytes {
		return false, fmt.Errorf("%s of run %s is %d bytes, more than the %d MiB a page reads", name, id, size, MaxJSONBytes>>20)
	}
	rc, err := h.store.OpenFile(ctx, id, name)
	if err != nil {
		return false, err
	}
	defer rc.Close()
	if err := json.NewDecoder(io.LimitReader(rc, MaxJSONBytes)).Decode(v); err != nil && err != io.EOF {
		return false, fmt.Errorf("%s of run %s: %w", name, id, err)
	}
	return true, nil
}

// histogram reads and decodes a step's stored latency histogram (nil when
// the step has none).
func (h *Handler) histogram(ctx context.Context, id string, st archive.Step) (*hdrhistogram.Histogram, error) {
	b, err := h.store.Histogram(ctx, id, st.Index, st.Scenario)
	if errors.Is(err, archive.ErrNotFound) || err == nil && len(b) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	hist, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("the latency histogram of run %s step %d %s: %w", id, st.Index+1, st.Scenario, err)
	}
	return hist, nil
}

// stepTitle names a step and scenario for headings and chart legends.
func stepTitle(run *archive.Run, st archive.Step) string {
	var parts []string
	if len(run.Steps) > 1 {
		parts = append(parts, fmt.Sprintf("step %d", st.Index+1))
	}
	if st.Name != "" && st.Name != st.Scenario {
		parts = append(parts, st.Name)
	}
	if st.Scenario != "" {
		parts = append(parts, st.Scenario)
	}
	if len(parts) == 0 {
		return run.Name
	}
	return strings.Join(parts, " · ")
}

var runHeadTmpl = template.Must(template.New("head").Parse(`<div class="meta">
<div>ID <code>{{.Run.ID}}</code> · permanent link <a href="{{.URL}}">{{.URL}}</a>{{with .Run.Slug}} · slug <code>{{.}}</code>{{end}}</div>
<div>started {{.Started}} · ended {{.Ended}} · added {{.Added}} · from {{.Run.Source}}</div>
{{with .Labels}}<div>labels {{range .}}<a class="label" href="{{.URL}}">{{.Key}}={{.Value}}</a>{{with .Source}}<a class="source" href="{{.}}" rel="noopener noreferrer" title="where this value comes from">↗</a>{{end}}{{end}}</div>{{end}}
{{with .Run.Command}}<div>command <code>{{.}}</code></div>{{end}}
{{with .Machine}}<div>machine {{.}}</div>{{end}}
<div class="health">machine health: {{.Health}}{{with .Noisy}} <span class="noisy" title="noisy: {{.}}">noisy</span>{{end}}</div>
<div><a href="{{.URL}}/archive.tar">download every stored file (tar)</a>{{with .Trend}} · <a href="{{.}}">this run in its trend</a>{{end}}</div>
</div>`))

var stepTableTmpl = template.Must(template.New("steps").Parse(`<div class="tw"><table>
<thead><tr><th>step</th><th>scenario</th>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td><a href="#{{.Anchor}}">{{.Step}}</a></td><td>{{.Scenario}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{with .Cell}}<p class="meta">{{.}}</p>{{end}}
{{with .Findings}}<ul class="findings">{{range .}}<li>{{.}}</li>
{{end}}</ul>{{end}}`))

var stepFilesTmpl = template.Must(template.New("stepfiles").Parse(`<p class="meta">{{if .Bin}}<a href="{{.Bin}}">results as vegeta .bin</a> (for <code>vegeta report</code>) · {{end}}<a href="#top">summary</a></p>`))

var downloadsTmpl = template.Must(template.New("downloads").Parse(`<ul class="downloads"><li><a href="{{.URL}}/archive.tar"><b>archive.tar</b></a>: every stored file below, in a folder named after the run</li>
{{range .Files}}<li><code>{{.Name}}</code> {{.Size}}</li>
{{end}}</ul>`))

// run serves a run's page.
func (h *Handler) run(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, canonical, err := h.lookup(ctx, r.PathValue("id"))
	if errors.Is(err, archive.ErrNotFound) {
		notFound(w, err)
		return
	}
	if err != nil {
		failure(w, err)
		return
	}
	if !canonical {
		http.Redirect(w, r, runURL(run.ID), http.StatusMovedPermanently)
		return
	}
	p, err := h.runPage(ctx, run)
	if err != nil {
		failure(w, err)
		return
	}
	writePage(w, http.StatusOK, p)
}

// runPage builds a run's page: the answer first, then each step's text
// report beside its percentile plot and the step's server metrics, then
// the downloads.
func (h *Handler) runPage(ctx context.Context, run *archive.Run) (web.Page, error) {
	id := run.ID
	files, err := h.store.Files(ctx, id)
	if err != nil {
		return web.Page{}, err
	}
	var sum summary.Summary
	hasSum, err := h.readJSONFile(ctx, id, summary.File, files, &sum)
	if err != nil {
		return web.Page{}, err
	}
	var samples []summary.Sample
	if _, err := h.readJSONFile(ctx, id, "samples.json", files, &samples); err != nil {
		return web.Page{}, err
	}

	p := newPage(run.Name)
	head := map[string]any{"Run": run, "URL": runURL(id), "Started": fmtTime(run.Started), "Ended": fmtTime(run.Ended), "Added": fmtTime(run.Added)}
	var labels []labelView
	for _, l := range sortedLabels(run.Labels) {
		labels = append(labels, labelView{l.Key, l.Value, "/?" + url.Values{"label": {l.Key + "=" + l.Value}}.Encode(), h.sourceURL(l.Key, l.Value)})
	}
	head["Labels"] = labels
	if len(labels) > 0 {
		head["Trend"] = "/trend?" + url.Values{"by": {labels[0].Key}, "metric": {"p99"}}.Encode()
	}
	head["Machine"] = machineText(run.Machine)
	head["Health"], head["Noisy"] = healthText(run.Health), noisyWhy(run.Health)
	headHTML, err := fragment(runHeadTmpl, head)
	if err != nil {
		return web.Page{}, err
	}

	// The answer: every step and scenario's figures, then the run's own
	// comparison, knee charts and thresholds when it came from a plan.
	type row struct {
		Anchor, Step, Scenario string
		Cells                  []string
	}
	var rows []row
	hists := make([]*hdrhistogram.Histogram, len(run.Steps))
	for i, st := range run.Steps {
		stepName := fmt.Sprint(st.Index + 1)
		if st.Name != "" {
			stepName += " " + st.Name
		}
		rows = append(rows, row{Anchor: stepAnchor(st), Step: stepName, Scenario: st.Scenario, Cells: figureCells(st.Figures)})
		if hists[i], err = h.histogram(ctx, id, st); err != nil {
			return web.Page{}, err
		}
	}
	var findings []string
	cell := ""
	if hasSum {
		findings = summary.Texts(sum.Findings)
		n := 0
		for _, st := range sum.Steps {
			n += len(st.Scenarios)
		}
		if n > len(run.Steps) {
			cell = fmt.Sprintf("This run is one cell of the plan %s (%d of its %d steps and scenarios, %s); the findings and comparison below are the whole plan's.",
				orText(sum.Name, "of its folder"), len(run.Steps), n, orText(joinLabels(run.Labels), "its matrix values as labels"))
		}
	}
	table, err := fragment(stepTableTmpl, map[string]any{"Header": figureHeader, "Rows": rows, "Findings": findings, "Cell": cell})
	if err != nil {
		return web.Page{}, err
	}
	top := web.Section{ID: "top", HTML: headHTML + table}
	if len(run.Steps) == 0 {
		top.HTML += `<p class="empty">This run has no steps stored.</p>`
	}
	p.Sections = append(p.Sections, top)
	pct := percentileOverlays(run, hists)
	if hasSum {
		charts := append(writeup.KneeCharts(&sum), pct...)
		p.Sections = append(p.Sections, writeup.AnswerSections(&sum, charts)...)
	} else if len(pct) > 0 {
		p.Sections = append(p.Sections, web.Section{Title: "Latency by percentile", Charts: pct})
	}

	// Per step and scenario: the text report beside its plot, and the
	// step's sampled server metrics on its time axis.
	collapsed := len(run.Steps) > collapseAfter
	byStep := map[int][]summary.Sample{}
	for _, s := range samples {
		byStep[s.Step-1] = append(byStep[s.Step-1], s)
	}
	for i, st := range run.Steps {
		sec := web.Section{ID: stepAnchor(st), Title: stepTitle(run, st), Text: st.Text, Side: true, Collapsed: collapsed}
		if sec.Text == "" {
			sec.Text = stepText(st)
		}
		if hists[i] != nil {
			d := plot.DistributionFromHistogram(orText(st.Scenario, "latency"), hists[i], metrics.HistogramUnit)
			sec.Charts = append(sec.Charts, plot.PercentileChart("Latency by percentile: "+stepTitle(run, st), d))
		}
		bin := ""
		if hasSum && h.hasResults(files) || !hasSum && len(files) > 0 {
			bin = fmt.Sprintf("%s/results.bin?%s", runURL(id), url.Values{"step": {fmt.Sprint(st.Index)}, "scenario": {st.Scenario}}.Encode())
		}
		if sec.HTML, err = fragment(stepFilesTmpl, map[string]any{"Bin": bin}); err != nil {
			return web.Page{}, err
		}
		p.Sections = append(p.Sections, sec)
		if ss := byStep[st.Index]; len(ss) > 0 && (i+1 == len(run.Steps) || run.Steps[i+1].Index != st.Index) {
			ax := stepAxis(st, ss)
			charts := writeup.SampleCharts(st.Name, ax, ss)
			for j := range charts {
				charts[j].Height = sampleChartHeight
			}
			p.Sections = append(p.Sections, web.Section{Title: fmt.Sprintf("Server metrics, step %d", st.Index+1),
				HTML:   `<p class="hint">Sampled during the step, on the step's time axis (seconds since it began).</p>`,
				Charts: charts, Collapsed: collapsed})
		}
	}

	// The log of when each step started and ended, as the terminal
	// showed it, and the plan: short texts, shown closed.
	for _, name := range []string{ingest.StepLog, planFile(files)} {
		if text, err := h.smallText(ctx, id, name, files); err != nil {
			return web.Page{}, err
		} else if text != "" {
			p.Sections = append(p.Sections, web.Section{Title: name, Text: text, Collapsed: true})
		}
	}

	var list []struct{ Name, Size string }
	for _, f := range files {
		list = append(list, struct{ Name, Size string }{f.Name, fmtSize(f.Size)})
	}
	dl, err := fragment(downloadsTmpl, map[string]any{"URL": runURL(id), "Files": list})
	if err != nil {
		return web.Page{}, err
	}
	p.Sections = append(p.Sections, web.Section{Title: "Downloads", ID: "downloads", HTML: dl})
	return p, nil
}

// percentileOverlays are, per scenario, every step's latency
// distribution on one chart (none for a run of one step).
func percentileOverlays(run *archive.Run, hists []*hdrhistogram.Histogram) []plot.Chart {
	if len(run.Steps) < 2 {
		return nil
	}
	var order []string
	by := map[string][]plot.Distribution{}
	for i, st := range run.Steps {
		if hists[i] == nil {
			continue
		}
		if _, ok := by[st.Scenario]; !ok {
			order = append(order, st.Scenario)
		}
		name := fmt.Sprintf("step %d", st.Index+1)
		if st.Name != "" {
			name += " " + st.Name
		}
		by[st.Scenario] = append(by[st.Scenario], plot.DistributionFromHistogram(name, hists[i], metrics.HistogramUnit))
	}
	var out []plot.Chart
	for _, sc := range order {
		if len(by[sc]) > 1 {
			out = append(out, plot.PercentileChart("Latency by percentile, "+sc+", every step", by[sc]...))
		}
	}
	return out
}

// stepAxis is a step's time axis: its start to its end, widened to its
// samples.
func stepAxis(st archive.Step, ss []summary.Sample) plot.TimeAxis {
	origin, end := st.Started, st.Ended
	for _, s := range ss {
		t := s.At()
		if origin.IsZero() || t.Before(origin) {
			origin = t
		}
		if t.After(end) {
			end = t
		}
	}
	return plot.TimeAxis{Origin: origin, Span: end.Sub(origin).Seconds()}
}

// stepText is a step's figures as text when no text report was stored.
func stepText(st archive.Step) string {
	var b strings.Builder
	cells := figureCells(st.Figures)
	for i, h := range figureHeader {
		fmt.Fprintf(&b, "%-11s %s\n", h, cells[i])
	}
	return b.String()
}

// machineText is a one-line account of the machine (summary.json's
// machine object), or "" when unknown.
func machineText(js string) string {
	var m summary.Machine
	if js == "" || json.Unmarshal([]byte(js), &m) != nil {
		return ""
	}
	var parts []string
	for _, v := range []string{m.Hostname, m.OS, m.Kernel, m.CPU} {
		if v != "" {
			parts = append(parts, v)
		}
	}
	if m.Cores > 0 {
		parts = append(parts, fmt.Sprintf("%d cores", m.Cores))
	}
	if m.MemoryGB > 0 {
		parts = append(parts, fmt.Sprintf("%.0f GB", m.MemoryGB))
	}
	if m.Go != "" {
		parts = append(parts, m.Go)
	}
	return strings.Join(parts, ", ")
}

// maxShownText is the largest stored text file shown on a run page.
const maxShownText = 64 << 10

// smallText is a stored text file of the run, "" when it is absent or
// larger than maxShownText.
func (h *Handler) smallText(ctx context.Context, id, name string, files []archive.File) (string, error) {
	for _, f := range files {
		if f.Name != name || name == "" || f.Size > maxShownText {
			continue
		}
		rc, err := h.store.OpenFile(ctx, id, name)
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, maxShownText))
		return string(b), err
	}
	return "", nil
}

// planFile is the name of the run's stored plan (plan.yaml, plan.json), or "".
func planFile(files []archive.File) string {
	for _, f := range files {
		if strings.HasPrefix(f.Name, "plan.") && !strings.Contains(f.Name, "/") {
			return f.Name
		}
	}
	return ""
}
