package writeup

import (
	"bufio"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// htmlTemplate writes a document as one self-contained page, with the
// charts drawn by uPlot and the stylesheet every loadlab page shares.
var htmlTemplate = template.Must(template.New("doc").Funcs(template.FuncMap{
	"inline": inline, "chartID": func() int { return 0 },
}).Parse(`{{define "block"}}{{with .Heading}}<h3>{{.}}</h3>
{{end}}{{with .Minor}}<h4>{{.}}</h4>
{{end}}{{with .Text}}<p>{{inline .}}</p>
{{end}}{{with .Note}}<blockquote>{{inline .}}</blockquote>
{{end}}{{with .Items}}<ul>{{range .}}<li>{{inline .}}</li>
{{end}}</ul>
{{end}}{{with .Findings}}<ul class="findings">{{range .}}<li>{{inline .}}</li>
{{end}}</ul>
{{end}}{{with .Table}}<div class="tw"><table>
<thead><tr>{{range .Header}}<th>{{inline .}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{inline .}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{with .Code}}<pre>{{.}}</pre>
{{end}}{{with .Label}}<h4>{{.}}</h4>
{{end}}{{range .Charts}}<div class="chart" id="chart-{{chartID}}"></div>
{{end}}{{with .Details}}<details class="part"><summary>{{inline .Summary}}</summary>
{{range .Blocks}}{{template "block" .}}{{end}}</details>
{{end}}{{end}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loadlab, uPlot {{.UPlot}}">
<title>{{.Doc.Title}}</title>
<style>{{.UPlotCSS}}</style>
<style>{{.PageCSS}}</style>
<style>{{.ReportCSS}}</style>
</head>
<body>
<h1>{{.Doc.Title}}</h1>
<div class="lead">
{{range .Doc.Lead}}{{template "block" .}}{{end}}</div>
{{if .HasCharts}}<p class="hint">Drag across a chart to zoom, double-click to reset; hover to read values; click a legend entry to hide or show its series.</p>{{end}}
{{range .Doc.Sections}}<section>
{{if .Collapsed}}<details class="step"><summary><h2>{{.Title}}</h2></summary>
{{else}}<h2>{{.Title}}</h2>
{{end}}{{range .Blocks}}{{template "block" .}}{{end}}{{if .Collapsed}}</details>
{{end}}</section>
{{end}}<script>{{.UPlotJS}}</script>
<script>window.LOADLAB_CHARTS = {{.Charts}};</script>
<script>{{.ChartJS}}</script>
</body>
</html>
`))

// reportCSS styles what only the report has: the lead, callouts, and
// collapsed parts inside a section.
const reportCSS = `
.lead p:first-child { font-size: 16px; }
h3 { font-size: 15px; margin-top: 20px; } h4 { font-size: 14px; margin: 14px 0 4px; }
blockquote { margin: 8px 0; padding: 6px 12px; border-left: 4px solid #d0a000; background: #fffbea; }
details.part { margin: 8px 0; }
details.part > summary { cursor: pointer; color: #0550ae; }
code { background: #f6f8fa; padding: 0 3px; font-size: 90%; }
p, li, blockquote, summary { overflow-wrap: anywhere; }
td { white-space: nowrap; } td:last-child { white-space: normal; }
`

// writeHTML renders d as report.html in dir.
func writeHTML(dir string, d *document) error {
	var charts []plot.Chart
	walkCharts(d, func(c chartFile) { charts = append(charts, c.Chart) })
	data, err := web.ChartData(charts)
	if err != nil {
		return err
	}
	next := 0
	t, err := htmlTemplate.Clone()
	if err != nil {
		return err
	}
	t.Funcs(template.FuncMap{"chartID": func() int { next++; return next - 1 }})
	a := web.SharedAssets()
	out, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	err = t.Execute(bw, map[string]any{
		"Doc": d, "HasCharts": len(charts) > 0, "UPlot": web.UPlotVersion(),
		"UPlotCSS": template.CSS(a.UPlotCSS), "PageCSS": template.CSS(a.PageCSS), "ReportCSS": template.CSS(reportCSS),
		"UPlotJS": template.JS(a.UPlotJS), "Charts": data, "ChartJS": web.ChartScript(),
	})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// walkCharts calls f on every chart of d in the order the page shows them.
func walkCharts(d *document, f func(chartFile)) {
	var blocks func([]block)
	blocks = func(bs []block) {
		for _, b := range bs {
			for _, c := range b.Charts {
				f(c)
			}
			if b.Details != nil {
				blocks(b.Details.Blocks)
			}
		}
	}
	blocks(d.Lead)
	for _, s := range d.Sections {
		blocks(s.Blocks)
	}
}

var (
	boldRE = regexp.MustCompile(`\*\*(.+?)\*\*`)
	emRE   = regexp.MustCompile(`(^|[\s(])\*([^*\s][^*]*?)\*($|[\s).,;:])`)
	linkRE = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

// inline renders the document's inline syntax (`code`, **bold**,
// *emphasis*, [text](link)) as HTML, everything else escaped. Links go only to files
// of the run folder or to http(s) pages.
func inline(s string) template.HTML {
	var b strings.Builder
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		parts = []string{s} // an unpaired backquote is a character
	}
	for i, part := range parts {
		esc := template.HTMLEscapeString(part)
		if i%2 == 1 {
			b.WriteString("<code>" + esc + "</code>")
			continue
		}
		esc = boldRE.ReplaceAllString(esc, "<strong>$1</strong>")
		esc = emRE.ReplaceAllString(esc, "$1<em>$2</em>$3")
		esc = linkRE.ReplaceAllStringFunc(esc, func(m string) string {
			sub := linkRE.FindStringSubmatch(m)
			if strings.Contains(sub[2], ":") && !strings.HasPrefix(sub[2], "http://") && !strings.HasPrefix(sub[2], "https://") {
				return m
			}
			return `<a href="` + sub[2] + `">` + sub[1] + "</a>"
		})
		b.WriteString(esc)
	}
	return template.HTML(b.String())
}
