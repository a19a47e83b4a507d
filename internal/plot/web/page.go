package web

import (
	"html/template"
	"io"

	"github.com/loadlab/loadlab/internal/plot"
)

// Page is one HTML document: a title and sections of text, tables and
// charts, in order.
type Page struct {
	Title    string
	Intro    string   // a paragraph under the title
	Findings []string // a bulleted list under the title: the answer first
	Sections []Section
}

// Section is a heading followed by its preformatted text (e.g. a vegeta
// style text report), its tables and its charts.
type Section struct {
	Title  string
	Text   string
	Tables []Table
	Charts []plot.Chart
	// Collapsed sections (a run's per-step detail) are closed until the
	// reader opens them; they open for printing.
	Collapsed bool
}

// Table is a simple table; the first column is left-aligned.
type Table struct {
	Header []string
	Rows   [][]string
}

type sectionView struct {
	Section
	ChartIDs []int
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loadlab, uPlot {{.UPlot}}">
<title>{{.Title}}</title>
<style>{{.UPlotCSS}}</style>
<style>{{.PageCSS}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Intro}}<p>{{.}}</p>{{end}}
{{with .Findings}}<ul class="findings">{{range .}}<li>{{.}}</li>
{{end}}</ul>{{end}}
{{if .HasCharts}}<p class="hint">Drag across a chart to zoom, double-click to reset; hover to read values; click a legend entry to hide or show its series.</p>{{end}}
{{range .Sections}}
<section>
{{if .Collapsed}}<details class="step"><summary>{{end}}{{with .Title}}<h2>{{.}}</h2>{{end}}{{if .Collapsed}}</summary>{{end}}
{{with .Text}}<pre>{{.}}</pre>{{end}}
{{range .Tables}}<div class="tw"><table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}
{{range .ChartIDs}}<div class="chart" id="chart-{{.}}"></div>
{{end}}
{{if .Collapsed}}</details>{{end}}
</section>
{{end}}
<script>{{.UPlotJS}}</script>
<script>window.LOADLAB_CHARTS = {{.Charts}};</script>
<script>{{.PageJS}}</script>
</body>
</html>
`))

// Write renders p as a self-contained HTML document: the uPlot library,
// styles, script and chart data are all inline, nothing is fetched.
func Write(w io.Writer, p Page) error {
	var charts []plot.Chart
	views := make([]sectionView, len(p.Sections))
	for i, s := range p.Sections {
		views[i].Section = s
		for _, c := range s.Charts {
			views[i].ChartIDs = append(views[i].ChartIDs, len(charts))
			charts = append(charts, c)
		}
	}
	js, err := ChartData(charts)
	if err != nil {
		return err
	}
	return page.Execute(w, map[string]any{
		"Title":     p.Title,
		"Intro":     p.Intro,
		"Findings":  p.Findings,
		"Sections":  views,
		"HasCharts": len(charts) > 0,
		"UPlot":     UPlotVersion(),
		"UPlotCSS":  template.CSS(uplotCSS),
		"PageCSS":   template.CSS(pageCSS),
		"UPlotJS":   template.JS(uplotJS),
		"PageJS":    ChartScript(),
		"Charts":    js,
	})
}
