package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/shardset"
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

  # vegeta plot's flags work unchanged
  loadlab plot --title "50qps" --threshold 1000 results.50qps.bin > plot.html

  # The shard files of one split attack are one run (refused if they are
  # shards of different attacks, unless -force); -by-shard draws each shard
  loadlab plot -output run-7.html run-7/shard-*.lll
  loadlab plot -by-shard -output run-7-shards.html run-7/shard-*.lll

  # Two split attacks on one plot: name each run's files
  loadlab plot -run 'before=run-7/*.lll' -run 'after=run-8/*.lll' -output cmp.html

  # A static SVG of the latency scatter, e.g. for a Markdown report
  loadlab plot -format svg -output latency.svg results.lll

  # Latency measured from the send time, as vegeta plots it (the default is
  # from the scheduled time: no coordinated omission)
  loadlab plot -basis send -output plot.html results.lll

  # From stdin
  loadlab attack ... | loadlab plot > plot.html`

func runPlot(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", "[flags] [files...]", plotExamples, stderr)
	output := fs.String("output", "-", "output `file`; - writes to stdout")
	title := fs.String("title", "Latency over time", "chart `title`")
	format := fs.String("format", "", "output `format`: html (interactive, self-contained) or svg (the latency scatter); default from -output's extension, else html")
	columns := fs.Int("resolution", 0, "time `columns` the latency scatter keeps (between n and 2n, each keeping one point per latency cell); 0: 2000 for html, 800 for svg")
	threshold := fs.Int("threshold", 0, "vegeta plot's downsampling `threshold`: each series keeps at most about N points per latency row, as -resolution N/2 (vegeta's default 4000 is html's default resolution); a series of fewer results is drawn whole")
	var basis metrics.Basis
	fs.Var(&basis, "basis", basisUsage)
	fs.Bool("due", true, "kept for older scripts: the same as -basis due, the default")
	force := fs.Bool("force", false, "plot results files that are shards of different attacks as one run anyway")
	byShard := fs.Bool("by-shard", false, "draw each shard file of a split attack as its own series (a slow or late shard shows), still from the attack's start instant")
	var named runFlag
	fs.Var(&named, "run", runUsage)
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
	if *threshold < 0 || (*threshold > 0 && *threshold < 2) {
		return badinput.Field("-threshold", "want 2 points or more, got %d", *threshold)
	}
	if *threshold > 0 {
		if *columns != 0 && *columns != *threshold/2 {
			return badinput.Field("-threshold", "-threshold %d means -resolution %d; -resolution %d contradicts it (give one)", *threshold, *threshold/2, *columns)
		}
		*columns = *threshold / 2
	}
	if *columns == 0 {
		*columns = map[string]int{"html": 2000, "svg": 800}[f]
	}
	files := fs.Args()
	if len(files) == 0 && len(named) == 0 {
		files = []string{"-"}
	}
	if len(files)+len(named) > 1 {
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
		set = plot.NewFileSet(*columns, basis)
		if err := set.Read(src, "stdin", false, warn); err != nil {
			return err
		}
	} else {
		runs, err := plotRuns(named, files, *force, *byShard)
		if err != nil {
			return err
		}
		if set, err = plot.ReadRuns(runs, *columns, basis, warn); err != nil {
			return err
		}
		files = nil
		for _, r := range runs {
			files = append(files, r.Paths...)
		}
	}
	charts := set.Charts(*title)
	return withOutput(*output, files, stdout, false, func(w io.Writer) error {
		if f == "svg" {
			return plot.WriteSVG(w, charts[0])
		}
		return web.Write(w, web.Page{
			Title:    *title,
			Intro:    fmt.Sprintf("%d results from %s. %s", set.Collector.Latency.Count(), strings.Join(files, ", "), percentiles(set, basis)),
			Sections: []web.Section{{Charts: charts}},
		})
	})
}

// plotRuns turns the -run runs and the files named on the command line
// into the runs to plot: a -run's files are one run, checked as report
// checks its files; among the other files, the shard files of one attack
// are one run and every other file a run of its own (package shardset).
// With byShard, each shard file is a run, still starting at its attack's
// start instant.
func plotRuns(named runFlag, files []string, force, byShard bool) ([]plot.Run, error) {
	type run struct {
		name string
		set  shardset.Set
	}
	var runs []run
	for _, r := range named {
		set, err := shardset.Files(r.Paths, force)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run{r.Name, set})
	}
	members, err := shardset.Open(files)
	if err != nil {
		return nil, err
	}
	sets, err := shardset.Group(members, force)
	if err != nil {
		return nil, err
	}
	for _, set := range sets {
		names := set.Names()
		for i := range names {
			names[i] = filepath.Base(names[i])
		}
		runs = append(runs, run{shardset.Name(names), set})
	}
	var out []plot.Run
	for _, r := range runs {
		if !byShard || !r.set.Shards() {
			out = append(out, plot.Run{Name: r.name, Paths: r.set.Names(), Start: r.set.Start()})
			continue
		}
		for _, m := range r.set.Members {
			out = append(out, plot.Run{Name: filepath.Base(m.Name), Paths: []string{m.Name}, Start: r.set.Start()})
		}
	}
	return out, nil
}

// percentiles states each run's latency percentiles as loadlab report
// prints them, and what they run from.
func percentiles(set *plot.FileSet, basis metrics.Basis) string {
	var parts []string
	for _, f := range set.Files {
		l := &f.Metrics.Latencies
		parts = append(parts, fmt.Sprintf("%s: p50 %s, p90 %s, p99 %s", f.Name,
			report.Round(l.P50), report.Round(l.P90), report.Round(l.P99)))
	}
	from := "the due time (files without due times: the send time)"
	if basis == metrics.FromSend {
		from = "the send time"
	}
	return "Latencies from " + from + ": " + strings.Join(parts, "; ") + "."
}
