package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	_ "github.com/loadlab/loadlab/internal/archive/sqlstore" // SQLite and Postgres archives
	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/termsafe"
)

func init() {
	registerArchive(archiveCommand{
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

  # CI: archive each commit's run, fail the job when a change made p99 worse
  loadlab run -archive ci.db -label commit=$SHA plan.yaml
  loadlab archive trend -db ci.db -by commit -metric p99 -fail-on-regression

  # One scenario of the runs labelled env=staging, as JSON
  loadlab archive trend -db lab.db -scenario search -label env=staging -metric mean -type json

  # Report changes of 2% and more (default 5%), ordered by start time
  loadlab archive trend -db lab.db -metric p50 -min-change 2%`

func runArchiveTrend(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	stdout = termsafe.Writer(stdout) // names, labels and reports come from files: no terminal commands
	fs := newFlagSet("archive trend", "-db DB -metric METRIC [-by LABEL] [flags]", archiveTrendExamples, stderr)
	db := fs.String("db", "", "the archive: a SQLite `file` or a postgres:// URL")
	by := fs.String("by", "", "`label` whose value orders the runs (dates, numbers and versions in their natural order, commit hashes in the order each was first run); by start time when empty")
	metric := fs.String("metric", "", "the `figure`: p50, p90, p95, p99, mean, max (latencies, ms), success (%) or throughput (/s)")
	scenario := fs.String("scenario", "", "one scenario's figures (`name`); each run's whole figures when empty")
	var labels listFlag
	fs.Var(&labels, "label", "only runs labelled `key=value` (repeatable)")
	typ := fs.String("type", "text", "output `format`: text (a table with the change points marked) or json")
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when a change made the figure worse (higher latency, lower success or throughput)")
	minChange := fs.String("min-change", "5%", "smallest relative `size` of change reported (as 5% or 0.05; 0 reports every significant change)")
	seed := fs.Uint64("seed", 1, "random `seed` of the bootstrap; the same seed gives the same verdicts")
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
	least, err := parseMinChange(*minChange)
	if err != nil {
		return err
	}
	o := trend.Options{Metric: m, By: *by, Scenario: *scenario, MinChange: least, Seed: *seed}
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
	if len(t.Points) == 0 {
		what := "no runs"
		if *by != "" {
			what = fmt.Sprintf("no runs labelled %s", *by)
		}
		fmt.Fprintf(stderr, "loadlab archive trend: %s in %s match\n", what, *db)
	}
	if *typ == "json" {
		err = trend.WriteJSON(stdout, t)
	} else {
		err = trend.WriteText(stdout, t)
	}
	if err != nil {
		return err
	}
	if regs := t.Regressions(); *failOn && len(regs) > 0 {
		lines := make([]string, len(regs))
		for i, c := range regs {
			lines[i] = trend.Describe(t, c)
		}
		return exitError{code: 1, msg: strings.Join(lines, "; ")}
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
