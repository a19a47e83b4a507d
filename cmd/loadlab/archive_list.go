package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/termsafe"
)

func init() {
	archiveCommands.register(command{name: "list", summary: "list runs, newest first, filtered by label and name; text or JSON", order: 20, run: runArchiveList})
}

const archiveListExamples = `  # Every run, newest first
  loadlab archive list -db runs.db

  # The runs of one build, as JSON (id, name, labels, started, requests,
  # rate, success, latencies with vegeta's keys in ns, a closed loop's
  # users, health: what the machine did to the run, ...)
  loadlab archive list -db runs.db -label build=2020-02-04 -type json

  # The 20 slowest runs named like "checkout"
  loadlab archive list -db runs.db -name checkout -sort p99 -limit 20`

func runArchiveList(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	stdout = termsafe.Writer(stdout) // names, labels and reports come from files: no terminal commands
	fs := newFlagSet("archive list", "-db DB [-label key=value]... [-name S] [-type json]", archiveListExamples, stderr)
	db := dbFlag(fs)
	labels := labelFlag{}
	fs.Var(labels, "label", "only runs with this `key=value` label (repeatable: every one must match)")
	name := fs.String("name", "", "only runs whose name contains this `text` (any case)")
	typ := fs.String("type", "text", "output `type`: text (a table) or json (an array of runs)")
	sortBy := fs.String("sort", "started", "order by `column`: started, added, name, requests, load (LOAD: paced runs by rate, then closed loops by users), rate, throughput, success, p50, p90, p95, p99, max, mean, lag, dropped")
	asc := fs.Bool("asc", false, "smallest (oldest) first")
	limit := fs.Int("limit", 0, "at most `n` runs (0: all)")
	offset := fs.Int("offset", 0, "skip the first `n` runs")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := needDB(*db); err != nil {
		return err
	}
	if *typ != "text" && *typ != "json" {
		return badinput.Field("-type", "want text or json, got %q", *typ)
	}
	if *limit < 0 || *offset < 0 {
		return badinput.Field("-limit", "-limit and -offset must not be negative")
	}
	if fs.NArg() > 0 {
		return badinput.Errorf("unexpected argument %q (filters are flags: -label, -name)", fs.Arg(0))
	}
	st, err := archive.OpenExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, total, err := st.List(ctx, archive.Filter{Name: *name, Labels: labels, Sort: *sortBy, Asc: *asc, Limit: *limit, Offset: *offset})
	if err != nil {
		return err
	}
	if *typ == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(runs)
	}
	return writeRunTable(stdout, runs, total)
}

// writeRunTable prints runs as a table, one line each. LOAD is the load
// as planned: the rate sent ("350/s"), or a closed loop's users ("32
// users"), whose rate is what they achieved. NOISE is what the machine
// did to the run (runblock.Health.Short): "noisy" when a verdict should
// not rest on it, else its lag's share of its p99 and the machine's busy
// share, "-" for a run archived before the archive kept it.
func writeRunTable(w io.Writer, runs []archive.Run, total int) error {
	tabs := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	tw := termsafe.Writer(tabs) // escaped before the columns are measured
	fmt.Fprintln(tw, "ID\tSTARTED\tNAME\tLABELS\tREQUESTS\tLOAD\tSUCCESS\tP50\tP99\tMAX\tNOISE")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%.2f%%\t%s\t%s\t%s\t%s\n", r.ID, r.Started.Local().Format(time.DateTime), r.Name,
			labelList(r.Labels), r.Requests, r.Load(), 100*r.Success,
			report.Round(r.Latencies.P50), report.Round(r.Latencies.P99), report.Round(r.Latencies.Max), r.Health.Short())
	}
	if err := tabs.Flush(); err != nil {
		return err
	}
	if len(runs) < total {
		_, err := fmt.Fprintf(w, "(%d of %d runs)\n", len(runs), total)
		return err
	}
	return nil
}

func labelList(l map[string]string) string {
	if len(l) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(l))
	for k, v := range l {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
