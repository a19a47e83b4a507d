package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/compare"
)

func init() {
	register(command{
		name:    "compare",
		summary: "compare runs: overlay percentiles, tell real differences from noise",
		order:   50,
		run:     runCompare,
	})
}

const compareExamples = `  # Report 004: the same test against several builds, the first is the baseline
  loadlab compare jan09.bin jan30.bin feb03.bin feb04.bin

  # Write the percentile overlay (SVG, self-contained HTML, Markdown) too
  loadlab compare -output cmp/ old.bin new.bin

  # Experiment output folders: every results stream inside is a run
  loadlab compare -baseline 2 out/before out/after

  # More resamples, another seed, a Markdown table
  loadlab compare -resamples 5000 -seed 7 -format markdown a.bin b.bin`

func runCompare(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "[flags] runA runB [run...]", compareExamples, stderr)
	output := fs.String("output", "", "`dir` to write percentiles.svg, compare.html and compare.md into; none when empty")
	title := fs.String("title", "Latency by percentile", "chart and page `title`")
	baseline := fs.String("baseline", "1", "baseline run: its 1-based `position` among the runs, or its name")
	resamples := fs.Int("resamples", 1000, "bootstrap resamples per run (`n`); more gives steadier intervals, slower")
	seed := fs.Uint64("seed", 1, "random `seed` of the bootstrap; the same seed prints the same table")
	format := fs.String("format", "text", "table `format`: text or markdown")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "markdown" {
		return badinput.Field("-format", "unknown format %q (want text or markdown)", *format)
	}
	if *resamples < 20 || *resamples > 1_000_000 {
		return badinput.Field("-resamples", "must be between 20 and 1000000, got %d", *resamples)
	}
	runs, err := compare.Load(fs.Args(), func(msg string) { fmt.Fprintln(stderr, "loadlab compare: warning:", msg) })
	if err != nil {
		return err
	}
	if len(runs) < 2 {
		return badinput.Errorf("need at least two runs to compare, got %d (a run is a results file or an experiment output folder)", len(runs))
	}
	bi, err := pickBaseline(*baseline, runs)
	if err != nil {
		return err
	}
	others := append(append([]*compare.Run(nil), runs[:bi]...), runs[bi+1:]...)
	rep := compare.Compare(runs[bi], others, compare.Options{Resamples: *resamples, Seed: *seed})
	if *format == "markdown" {
		err = rep.WriteMarkdown(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if *output != "" {
		ordered := append([]*compare.Run{runs[bi]}, others...)
		paths, err := compare.WriteDir(*output, *title, rep, ordered)
		if err != nil {
			return badinput.Wrap(*output, err)
		}
		for _, p := range paths {
			fmt.Fprintln(stderr, "wrote", p)
		}
	}
	return nil
}

func pickBaseline(s string, runs []*compare.Run) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > len(runs) {
			return 0, badinput.Field("-baseline", "position %d is out of range: there are %d runs", n, len(runs))
		}
		return n - 1, nil
	}
	for i, r := range runs {
		if r.Name == s {
			return i, nil
		}
	}
	return 0, badinput.Field("-baseline", "no run is named %q", s)
}
