package main

import (
	"context"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	_ "github.com/loadlab/loadlab/internal/archive/sqlstore" // SQLite and Postgres archives
	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/termsafe"
	"github.com/loadlab/loadlab/internal/verdict"
)

func init() {
	archiveCommands.register(command{
		name:    "trend",
		summary: "one figure across runs ordered by a label, with change points; -fail-on-regression for CI",
		order:   30,
		run:     runArchiveTrend,
	})
}

const archiveTrendExamples = `  # The regression hunt: which build made the page slower?
  loadlab run -out hunt examples/004-regression-hunt/plan.yaml
  loadlab archive add -db lab.db hunt            # one archived run per build, labelled build=...
  loadlab archive trend -db lab.db -by build -metric p95

  # CI: run each commit three times (replicates), then gate on the newest
  # commit against the level since the last change or accepted baseline
  for i in 1 2 3; do loadlab run -archive ci.db -label commit=$SHA plan.yaml; done
  loadlab archive trend -db ci.db -by commit -metric p99 -fail-on-regression
  case $? in 3) echo "too noisy or too few runs: run this commit again";; esac

  # An intended slowdown: accept its run as the new baseline
  loadlab archive accept -db ci.db -note "TLS everywhere" RUN_ID

  # Judge only the last 20 commits, or those since a release's
  loadlab archive trend -db ci.db -by commit -metric p99 -last 20 -fail-on-regression
  loadlab archive trend -db ci.db -by version -metric p99 -since v2.3.0

  # One scenario of the runs labelled env=staging, as JSON
  loadlab archive trend -db lab.db -scenario search -label env=staging -metric mean -type json

Exit status:
  0  no regression (the newest build is no worse, or it was accepted;
     without -fail-on-regression, whatever the verdict)
  1  -fail-on-regression: the newest build is a regression (the line names
     its run, the size and the 99% interval)
  2  bad input or nothing to judge: an unknown flag, metric or -by label, a
     -label, -scenario or -since that matches no run, an empty archive
  3  -fail-on-regression: cannot tell (too few runs, or too noisy: the text
     says which runs were noisy and how many repeats would decide); a CI
     script can run the build again and retry`

func runArchiveTrend(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	stdout = termsafe.Writer(stdout) // names, labels and reports come from files: no terminal commands
	fs := newFlagSet("archive trend", "-db DB -metric METRIC [-by LABEL] [flags]", archiveTrendExamples, stderr)
	db := fs.String("db", "", "the archive: a SQLite `file` or a postgres:// URL")
	by := fs.String("by", "", "`label` whose value orders the runs (dates, numbers and versions in their natural order, commit hashes in the order each was first run); runs sharing a value are one build's replicates; by start time when empty")
	metric := fs.String("metric", "", "the `figure`: p50, p90, p95, p99, mean, max (latencies, ms), success (%) or throughput (/s)")
	scenario := fs.String("scenario", "", "one scenario's figures (`name`); each run's whole figures when empty")
	var labels listFlag
	fs.Var(&labels, "label", "only runs labelled `key=value` (repeatable)")
	typ := fs.String("type", "text", "output `format`: text (a table with the change points marked) or json")
	failOn := fs.Bool("fail-on-regression", false, "gate: judge the newest build (the newest -by value, with its replicates) against the level since the last change or accepted run; exit 1 when it is worse, 3 when the runs cannot tell")
	minChange := fs.String("min-change", "", "smallest `size` of change reported and gated on: relative for latencies and throughput (default 5%), in points of requests for success (default 1%); 0 reports every change the interval shows")
	noiseFloor := fs.Bool("noise-floor", false, "take the smallest change from the replicates' run-to-run spread (the smallest difference two runs of one build can show at 99%) instead of -min-change")
	since := fs.String("since", "", "judge only the runs from the first one whose -by label has this `value` on")
	last := fs.Int("last", 0, "judge only the last `N` builds (values of -by; runs without -by)")
	seed := fs.Uint64("seed", 1, "random `seed` of the permutation test and the block bootstrap; the same seed gives the same verdicts")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badinput.Errorf("unexpected argument %q (flags only)", fs.Arg(0))
	}
	if *db == "" {
		return badinput.Field("-db", "missing: the archive to read (a SQLite file or a postgres:// URL)")
	}
	if *metric == "" {
		return badinput.Field("-metric", "missing: one of p50, p90, p95, p99, mean, max, success, throughput")
	}
	m, err := trend.ParseMetric(*metric)
	if err != nil {
		return err
	}
	if *typ != "text" && *typ != "json" {
		return badinput.Field("-type", "unknown format %q (want text or json)", *typ)
	}
	least := 0.0
	if *minChange != "" {
		if least, err = parseMinChange(*minChange); err != nil {
			return err
		}
	}
	if *last < 0 {
		return badinput.Field("-last", "%d: want a number of builds, 1 or more", *last)
	}
	o := trend.Options{Metric: m, By: *by, Scenario: *scenario, MinChange: least, NoiseFloor: *noiseFloor, Since: *since, Last: *last, Seed: *seed}
	for _, l := range labels {
		k, v, err := archive.ParseLabel(l)
		if err != nil {
			return badinput.Field("-label", "%v", err)
		}
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		o.Labels[k] = v
	}
	store, err := archive.OpenExisting(ctx, *db)
	if err != nil {
		if badinput.Is(err) {
			return err
		}
		return badinput.Field("-db", "%v", err)
	}
	defer store.Close()
	t, err := trend.Compute(ctx, store, o)
	if err != nil {
		return err
	}
	if err := t.Nothing(); err != nil {
		return err
	}
	if *typ == "json" {
		err = trend.WriteJSON(stdout, t)
	} else {
		err = trend.WriteText(stdout, t)
	}
	if err != nil || !*failOn || t.Gate == nil {
		return err
	}
	switch g := t.Gate; {
	case g.Regression:
		return exitError{code: 1, msg: "regression: " + g.Text}
	case g.Verdict.Outcome == verdict.CannotTell:
		return exitError{code: 3, msg: g.Text}
	}
	return nil
}

// parseMinChange parses -min-change: "5%" or "0.05"; 0 reports every
// significant change (trend's negative MinChange).
func parseMinChange(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	switch {
	case err != nil || v != v || v < 0 || math.IsInf(v, 0):
		return 0, badinput.Field("-min-change", "%q is not a size (write 5%% or 0.05)", s)
	case pct:
		v /= 100
	case v > 1:
		return 0, badinput.Field("-min-change", "%q: a fraction above 1 (for %s%% write %s%%)", s, t, t)
	}
	if v == 0 {
		return -1, nil
	}
	return v, nil
}
