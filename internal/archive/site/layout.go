package site

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/loadlab/loadlab/internal/plot/web"
)

// Every page is a web.Page (the self-contained page report.html and
// `loadlab plot` write, with the vendored uPlot) with the site's
// navigation above its title.

var navTmpl = template.Must(template.New("nav").Parse(`<nav class="site"><a class="brand" href="/">loadlab archive</a><a href="/">Runs</a><a href="/trend">Trend</a><a href="/compare">Compare</a></nav>`))

// siteCSS styles what the site adds to the pages: navigation, forms,
// link tables, the pager and badges.
const siteCSS = `
body { max-width: 1240px; }
nav.site { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: baseline; border-bottom: 2px solid #1f77b4; padding-bottom: 6px; }
nav.site a { color: #1f4e79; text-decoration: none; font-size: 14px; }
nav.site a.brand { font-weight: bold; font-size: 16px; color: #222; }
a { color: #1f4e79; }
.meta { color: #555; font-size: 13px; line-height: 1.6; }
.meta code, td code { font-size: 12px; }
form.filter { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin: 12px 0; font-size: 13px; }
form.filter label { display: flex; flex-direction: column; gap: 2px; color: #555; }
form.filter input, form.filter select { font-size: 14px; padding: 4px 6px; border: 1px solid #bbb; border-radius: 3px; min-width: 0; }
button { font-size: 14px; padding: 5px 12px; border: 1px solid #1f4e79; background: #1f77b4; color: #fff; border-radius: 3px; cursor: pointer; }
table.runs td, table.runs th { white-space: nowrap; }
table.runs td:nth-child(-n+4), table.runs th:nth-child(-n+4), table.runs td:last-child, table.runs th:last-child { text-align: left; }
table.runs th a { color: inherit; text-decoration: none; }
table.runs th a.on { text-decoration: underline; }
table.points td:nth-child(-n+4), table.points th:nth-child(-n+4) { text-align: left; }
.label { display: inline-block; background: #eef3f8; border: 1px solid #d0dbe6; border-radius: 3px; padding: 0 5px; margin: 1px 2px; font-size: 12px; color: #1f4e79; text-decoration: none; white-space: nowrap; }
.pager { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; font-size: 13px; margin: 8px 0; }
.bad { color: #b00020; font-weight: bold; }
ul.findings li.bad, tr.bad td { font-weight: normal; }
.good { color: #207020; }
.noisy { color: #a05a00; font-size: 0.85em; border: 1px solid #a05a00; border-radius: 3px; padding: 0 3px; }
.empty { color: #777; font-style: italic; }
ul.downloads { font-size: 14px; line-height: 1.7; }
.chart .u-over { cursor: crosshair; }
.side { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
.side pre { font-size: 11px; }
@media (max-width: 900px) { .side { grid-template-columns: minmax(0, 1fr); } }
@media (max-width: 600px) { body { margin: 12px auto; padding: 0 10px; } h1 { font-size: 19px; } }
`

// newPage is a page of the site titled title.
func newPage(title string) web.Page {
	var nav bytes.Buffer
	_ = navTmpl.Execute(&nav, nil)
	return web.Page{Title: title, Nav: template.HTML(nav.String()), CSS: siteCSS}
}

// writePage sends p with the given status.
func writePage(w http.ResponseWriter, status int, p web.Page) {
	var b bytes.Buffer
	if err := web.Write(&b, p); err != nil {
		failure(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// fragment executes t with data into markup for a section.
func fragment(t *template.Template, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
