package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
	"github.com/loadlab/loadlab/internal/results"
)

func init() {
	register(command{
		name:    "plot",
		summary: "plot results files: interactive HTML latency plot (or SVG)",
		order:   40,
		run:     runPlot,
	})
}

const plotExamples = `  # vegeta plot's job: an interactive latency plot of an attack
  loadlab plot -output plot.html results.lll

  # Several runs on one plot (each file gets its own series), with a title
  loadlab plot -title "pool 512+256 vs 512+512" -output pools.html a.lll b.lll

  # A static SVG of the latency scatter, e.g. for a Markdown report
  loadlab plot -format svg -output latency.svg results.lll

  # Latency measured from the scheduled time (no coordinated omission)
  loadlab plot -due -output plot.html results.lll

  # From stdin
  loadlab attack ... | loadlab plot > plot.html`

func runPlot(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", "[flags] [files...]", plotExamples, stderr)
	output := fs.String("output", "-", "output `file`; - writes to stdout")
	title := fs.String("title", "Latency over time", "chart `title`")
	format := fs.String("format", "", "output `format`: html (interactive, self-contained) or svg (the latency scatter); default from -output's extension, else html")
	columns := fs.Int("resolution", 0, "time `columns` the latency scatter keeps (between n and 2n, each keeping one point per latency cell); 0: 2000 for html, 800 for svg")
	due := fs.Bool("due", false, "plot latency from each request's due time instead of its send time (includes the generator's lag)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f := strings.ToLower(*format)
	if f == "" {
		f = "html"
		if strings.EqualFold(filepath.Ext(*output), ".svg") {
			f = "svg"
		}
	}
	if f != "html" && f != "svg" {
		return badinput.Field("-format", "unknown format %q (want html or svg)", *format)
	}
	if *columns < 0 {
		return badinput.Field("-resolution", "must be positive, got %d", *columns)
	}
	if *columns == 0 {
		*columns = map[string]int{"html": 2000, "svg": 800}[f]
	}
	files := fs.Args()
	if len(files) == 0 {
		files = []string{"-"}
	}
	if len(files) > 1 {
		for _, p := range files {
			if p == "-" {
				return badinput.Errorf("stdin (-) cannot be mixed with files")
			}
		}
	}
	warn := func(msg string) { fmt.Fprintln(stderr, "loadlab plot: warning:", msg) }
	var set *plot.FileSet
	if len(files) == 1 && files[0] == "-" {
		src, err := results.OpenReader(stdin, "stdin")
		if err != nil {
			return err
		}
		set = plot.NewFileSet(*columns, *due)
		if err := set.Read(src, "stdin", false, warn); err != nil {
			return err
		}
	} else {
		var err error
		if set, err = plot.ReadFiles(files, *columns, *due, warn); err != nil {
			return err
		}
	}
	charts := set.Charts(*title)
	return withOutput(*output, stdout, false, func(w io.Writer) error {
		if f == "svg" {
			return plot.WriteSVG(w, charts[0])
		}
		return web.Write(w, web.Page{
			Title:    *title,
			Intro:    fmt.Sprintf("%d results from %s.", set.Collector.Latency.Count(), strings.Join(files, ", ")),
			Sections: []web.Section{{Charts: charts}},
		})
	})
}
