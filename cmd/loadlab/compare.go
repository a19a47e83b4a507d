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

  # Runs split over several generators: the shard files of one attack are
  # one run (a fleet's -out folder too); name each run's files with -run
  loadlab compare single.lll run-7/shard-*.lll
  loadlab compare run-7/ run-8/
  loadlab compare -run 'before=run-7/*.lll' -run 'after=run-8/*.lll'

  # More resamples, another seed, a Markdown table
  loadlab compare -resamples 8000 -seed 7 -format markdown a.lll b.lll

  # Two builds measured at once in one attack (loadlab attack -duet):
  # B/A of every figure, noise that hit both sides cancelled
  loadlab compare -duet duet.lll

  # A CI gate: JSON for the record, exit 1 when a figure got worse by 5%
  # or more beyond noise, 3 when the runs cannot tell
  loadlab compare -type json -fail-on-regression -min-change 5% main/ pr/`

func runCompare(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "[flags] runA runB [run...]   (a run: a results file, a folder, the shard files of one attack, or -run NAME=FILES)", compareExamples, stderr)
	output := fs.String("output", "", "`dir` to write percentiles.svg, compare.html and compare.md into; none when empty")
	title := fs.String("title", "Latency by percentile", "chart and page `title`")
	baseline := fs.String("baseline", "1", "baseline run: its 1-based `position` among the runs (within each group), or its name")
	resamples := fs.Int("resamples", compare.RunLevelResamples, "block-bootstrap resamples per run (`n`); more gives steadier intervals, slower")
	seed := fs.Uint64("seed", 1, "random `seed` of the bootstrap; the same seed prints the same table")
	format := fs.String("format", "text", "table `format`: text or markdown")
	typ := fs.String("type", "text", "output `type`: text (the table, in -format) or json (docs/plots.md)")
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when a figure got worse beyond noise and -min-change, 3 when none did but one cannot be told, 0 otherwise")
	minChange := fs.String("min-change", "5%", "smallest `change` called worse or better: relative for latencies and throughput (5% or 0.05); the success ratio's is 1 point (0: every change beyond noise)")
	duet := fs.String("duet", "", "compare side B with side A of a duet's results `file` (loadlab attack -duet), or of every duet in a folder; no other runs")
	var basis metrics.Basis
	fs.Var(&basis, "basis", basisUsage)
	force := fs.Bool("force", false, "read results files that are shards of different attacks as one run anyway")
	var named runFlag
	fs.Var(&named, "run", runUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *typ != "text" && *typ != "json" {
		return badinput.Field("-type", "unknown type %q (want text or json)", *typ)
	}
	least, err := parseMinChange(*minChange)
	if err != nil {
		return err
	}
	points := 0.0
	if least < 0 {
		points = -1
	}
	if *format != "text" && *format != "markdown" {
		return badinput.Field("-format", "unknown format %q (want text or markdown)", *format)
	}
	if *resamples < 20 || *resamples > 1_000_000 {
		return badinput.Field("-resamples", "must be between 20 and 1000000, got %d", *resamples)
	}
	var byName []compare.Named
	for _, r := range named {
		byName = append(byName, compare.Named{Name: r.Name, Paths: r.Paths})
	}
	lo := compare.LoadOptions{Basis: basis, Force: *force,
		Warn: func(msg string) { fmt.Fprintln(stderr, "loadlab compare: warning:", msg) }}
	opt := compare.Options{Resamples: *resamples, Seed: *seed, RunLevel: true, MinChange: least, MinPoints: points}
	var comps []compare.Comparison
	var alone []*compare.Run
	if *duet != "" {
		if fs.NArg() > 0 || len(byName) > 0 {
			return badinput.Field("-duet", "compares the two sides of a duet: give no other runs (got %d)", fs.NArg()+len(byName))
		}
		duets, err := compare.LoadDuets(*duet, lo)
		if err != nil {
			return err
		}
		for _, d := range duets {
			comps = append(comps, compare.Comparison{Report: compare.ComparePaired(d, opt), Runs: []*compare.Run{d.A, d.B}})
		}
	} else {
		runs, err := compare.Load(byName, fs.Args(), lo)
		if err != nil {
			return err
		}
		comps, alone, err = compare.CompareGroups(runs, *baseline, opt)
		if err != nil {
			return err
		}
	}
	for i, c := range comps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if *typ == "json" {
			break
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
	if *typ == "json" {
		if err := compare.WriteJSON(stdout, comps); err != nil {
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
	if gate := compare.Gate(comps); *failOn && gate != compare.NoChange {
		return exitError{code: compare.GateCode(gate), msg: "a figure " + map[string]string{"worse": "got worse beyond noise", compare.CannotTell: "cannot be told (see the table)"}[gate]}
	}
	return nil
}
