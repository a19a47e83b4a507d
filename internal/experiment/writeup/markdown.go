package writeup

import (
	"html"
	"strings"
	"text/template"
)

// mdTemplate writes a document as GitHub-flavoured Markdown: collapsed
// parts are <details> blocks, charts are the SVG files beside report.md,
// a labelled row of charts (a step's) is one line of a paragraph, ended by
// a hard line break.
var mdTemplate = template.Must(template.New("doc").Funcs(template.FuncMap{
	"table": mdTable, "fence": fence, "quote": quote, "escape": html.EscapeString,
}).Parse(`{{define "block"}}{{with .Heading}}### {{.}}
{{end}}{{with .Minor}}#### {{.}}
{{end}}{{with .Text}}{{.}}

{{end}}{{with .Note}}{{quote .}}

{{end}}{{with .Items}}{{range .}}- {{.}}
{{end}}
{{end}}{{with .Findings}}{{range .}}- {{.}}
{{end}}
{{end}}{{with .Table}}{{table .}}
{{end}}{{with .Code}}{{fence .}}
{{end}}{{with .Label}}**{{.}}**: {{end}}{{with .Charts}}{{range $i, $c := .}}{{if $i}} {{end}}![{{$c.Title}}]({{$c.File}}){{end}}{{end}}{{if .Label}}  
{{else if .Charts}}

{{end}}{{with .Details}}<details><summary>{{escape .Summary}}</summary>

{{range .Blocks}}{{template "block" .}}{{end}}</details>

{{end}}{{end}}{{define "section"}}{{if .Collapsed}}<details><summary><b>{{escape .Title}}</b></summary>

{{else}}## {{.Title}}
{{end}}{{range .Blocks}}{{template "block" .}}{{end}}{{if .Collapsed}}
</details>

{{end}}{{end}}# {{.Title}}
{{range .Lead}}{{template "block" .}}{{end}}{{range .Sections}}{{template "section" .}}{{end}}`))

// markdown renders d as report.md.
func markdown(d *document) (string, error) {
	var b strings.Builder
	if err := mdTemplate.Execute(&b, d); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// mdTable writes a table; a cell's | and line breaks would end it early.
func mdTable(t *table) string {
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	row := func(cs []string) string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = cell.Replace(c)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	var b strings.Builder
	b.WriteString(row(t.Header) + "|" + strings.Repeat("---|", len(t.Header)) + "\n")
	for _, r := range t.Rows {
		b.WriteString(row(r))
	}
	return b.String()
}

// fence writes preformatted text as a fenced block, with a fence longer
// than any run of backticks inside it.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n"
}

// quote writes a callout as a blockquote, every line of it.
func quote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}
