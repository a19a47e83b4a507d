package main

import (
	"context"
	"fmt"
	"io"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/compare"
	"github.com/loadlab/loadlab/internal/metrics"
)

func init() {
	register(command{
		name:    "compare",
		summary: "compare runs: overlay percentiles, tell real differences from noise",
		order:   50,
		run:     runCompare,
	})
}

const compareExamples = `  # The same test against several builds (which one regressed?); the first is the baseline
  loadlab compare jan09.lll jan30.lll feb03.lll feb04.lll

  # Write the percentile overlay (SVG, self-contained HTML, Markdown) too
  loadlab compare -output cmp/ old.lll new.lll

  # One experiment's folder: each scenario's steps against its first step
  loadlab compare out/

  # Two experiment folders, compared step by step and scenario by scenario;
  # the second folder is the baseline
  loadlab compare -baseline 2 out-before/ out-after/

  # More resamples, another seed, a Markdown table
  loadlab compare -resamples 5000 -seed 7 -format markdown a.lll b.lll`

func runCompare(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "[flags] runA runB [run...]", compareExamples, stderr)
	output := fs.String("output", "", "`dir` to write percentiles.svg, compare.html and compare.md into; none when empty")
	title := fs.String("title", "Latency by percentile", "chart and page `title`")
	baseline := fs.String("baseline", "1", "baseline run: its 1-based `position` among the runs (within each group), or its name")
	resamples := fs.Int("resamples", 1000, "bootstrap resamples per run (`n`); more gives steadier intervals, slower")
	seed := fs.Uint64("seed", 1, "random `seed` of the bootstrap; the same seed prints the same table")
	format := fs.String("format", "text", "table `format`: text or markdown")
	var basis metrics.Basis
	fs.Var(&basis, "basis", basisUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "markdown" {
		return badinput.Field("-format", "unknown format %q (want text or markdown)", *format)
	}
	if *resamples < 20 || *resamples > 1_000_000 {
		return badinput.Field("-resamples", "must be between 20 and 1000000, got %d", *resamples)
	}
	runs, err := compare.Load(fs.Args(), basis, func(msg string) { fmt.Fprintln(stderr, "loadlab compare: warning:", msg) })
	if err != nil {
		return err
	}
	comps, alone, err := compare.CompareGroups(runs, *baseline, compare.Options{Resamples: *resamples, Seed: *seed})
	if err != nil {
		return err
	}
	for i, c := range comps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if *format == "markdown" {
			err = c.Report.WriteMarkdown(stdout)
		} else {
			err = c.Report.WriteText(stdout)
		}
		if err != nil {
			return err
		}
	}
	for _, r := range alone {
		fmt.Fprintf(stderr, "loadlab compare: %s has nothing to compare with (no other run of %q)\n", r.Name, r.Group)
	}
	if *output != "" {
		paths, err := compare.WriteDir(*output, *title, comps)
		if err != nil {
			return badinput.Wrap(*output, err)
		}
		for _, p := range paths {
			fmt.Fprintln(stderr, "wrote", p)
		}
	}
	return nil
}
