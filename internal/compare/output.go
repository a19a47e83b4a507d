package compare

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// Distributions returns each run's percentile distribution, for overlays.
func Distributions(runs []*Run) []plot.Distribution {
	out := make([]plot.Distribution, len(runs))
	for i, r := range runs {
		out[i] = plot.DistributionFromHistogram(r.Name, r.Hist, Unit)
	}
	return out
}

// Files written by WriteDir.
const (
	SVGFile      = "percentiles.svg"
	HTMLFile     = "compare.html"
	MarkdownFile = "compare.md"
)

// WriteDir writes the comparison into dir (created if needed): the
// percentile overlay as SVG, a self-contained interactive HTML page with the
// overlay and the table, and a Markdown page embedding the SVG above the
// table. It returns the paths written.
func WriteDir(dir, title string, rep Report, runs []*Run) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	chart := plot.PercentileChart(title, Distributions(runs)...)
	var svg, html, md bytes.Buffer
	if err := plot.WriteSVG(&svg, chart); err != nil {
		return nil, err
	}
	header, rows := rep.Table()
	page := web.Page{
		Title: title,
		Intro: fmt.Sprintf("Each run against the baseline %q. %s", rep.Baseline, rep.Method()),
		Sections: []web.Section{
			{Title: "Latency by percentile", Charts: []plot.Chart{chart}},
			{Title: "Differences", Tables: []web.Table{{Header: header, Rows: rows}}},
		},
	}
	if err := web.Write(&html, page); err != nil {
		return nil, err
	}
	fmt.Fprintf(&md, "# %s\n\n![Latency by percentile](%s)\n\n", title, SVGFile)
	if err := rep.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		b    []byte
	}{{SVGFile, svg.Bytes()}, {HTMLFile, html.Bytes()}, {MarkdownFile, md.Bytes()}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.b, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
