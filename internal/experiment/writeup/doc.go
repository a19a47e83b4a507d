package writeup

// document is a report as both renderers see it: built once from the run
// folder (build), written as report.md by a text/template (markdown.go)
// and as report.html by an html/template (html.go). Text holds the small
// inline syntax both render: `code`, **bold**, *emphasis* and
// [text](link).
type document struct {
	Title string
	// Lead is the answer, under the title and before any section.
	Lead     []block
	Sections []section
}

// section is a titled part of the report. A collapsed one is closed until
// the reader opens it (<details>, which GitHub renders in Markdown too).
type section struct {
	Title     string
	Collapsed bool
	Blocks    []block
}

// block is one piece of a section; exactly one of its fields is set.
type block struct {
	Heading  string   // a sub-heading
	Minor    string   // a heading below a sub-heading
	Text     string   // a paragraph
	Note     string   // a callout (a blockquote)
	Items    []string // a bulleted list
	Findings []string // a bulleted list of findings (the analysis' sentences)
	Table    *table
	Code     string      // preformatted text, kept as written
	Charts   []chartFile // drawn side by side in Markdown, one below the other in HTML
	Label    string      // what the charts show (a step's name)
	Details  *details
}

// table is a table whose first column names the row.
type table struct {
	Header []string
	Rows   [][]string
}

// details is a collapsed group of blocks under a one-line summary.
type details struct {
	Summary string
	Blocks  []block
}

func text(s string) block                    { return block{Text: s} }
func note(s string) block                    { return block{Note: s} }
func heading(s string) block                 { return block{Heading: s} }
func code(s string) block                    { return block{Code: s} }
func tableOf(h []string, r [][]string) block { return block{Table: &table{Header: h, Rows: r}} }
func collapsed(summary string, bs ...block) block {
	return block{Details: &details{Summary: summary, Blocks: bs}}
}
