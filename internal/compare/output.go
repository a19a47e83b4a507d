package compare

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/outfile"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
	"github.com/loadlab/loadlab/internal/slug"
)

// Distributions returns each run's percentile distribution, for overlays.
func Distributions(runs []*Run) []plot.Distribution {
	out := make([]plot.Distribution, len(runs))
	for i, r := range runs {
		out[i] = plot.DistributionOf(r.Name, r.Latencies())
	}
	return out
}

// Files written by WriteDir.
const (
	SVGFile      = "percentiles.svg" // percentiles-<group>.svg when there are several groups
	HTMLFile     = "compare.html"
	MarkdownFile = "compare.md"
)

// WriteDir writes the comparisons into dir (created if needed): each
// group's percentile overlay as SVG, a self-contained interactive HTML page
// with the overlays and the tables, and a Markdown page embedding the SVGs
// above the tables. It returns the paths written.
func WriteDir(dir, title string, comps []Comparison) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	type file struct {
		name string
		b    []byte
	}
	var files []file
	var md bytes.Buffer
	page := web.Page{Title: title}
	fmt.Fprintf(&md, "# %s\n\n", title)
	for i, c := range comps {
		ctitle, svgName := title, SVGFile
		if c.Report.Group != "" {
			ctitle = title + ": " + c.Report.Group
		}
		if len(comps) > 1 {
			svgName = fmt.Sprintf("percentiles-%02d-%s.svg", i+1, slug.Make(c.Report.Group, "runs"))
		}
		chart := plot.PercentileChart(ctitle, Distributions(c.Runs)...)
		var svg bytes.Buffer
		if err := plot.WriteSVG(&svg, chart); err != nil {
			return nil, err
		}
		files = append(files, file{svgName, svg.Bytes()})
		header, rows := c.Report.Table()
		page.Sections = append(page.Sections, web.Section{
			Title:  ctitle,
			Text:   fmt.Sprintf("Baseline: %s. Requests: %s.", c.Report.Baseline, c.Report.Sizes()),
			Charts: []plot.Chart{chart},
			Tables: []web.Table{{Header: header, Rows: rows}},
		})
		fmt.Fprintf(&md, "![%s](%s)\n\n", ctitle, svgName)
		if err := c.Report.WriteMarkdown(&md); err != nil {
			return nil, err
		}
		md.WriteString("\n")
	}
	if len(comps) > 0 {
		page.Intro = comps[0].Report.Method()
	}
	var html bytes.Buffer
	if err := web.Write(&html, page); err != nil {
		return nil, err
	}
	files = append(files, file{HTMLFile, html.Bytes()}, file{MarkdownFile, md.Bytes()})
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := outfile.WriteFile(p, f.b); err != nil { // whole or not at all
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
