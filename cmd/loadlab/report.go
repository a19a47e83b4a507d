package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/shardset"
)

func init() {
	register(command{
		name:    "report",
		summary: "report results files (loadlab or vegeta): text, json, hist, hdrplot; per interval",
		order:   30,
		run:     runReport,
	})
}

const reportExamples = `  # vegeta's text report of an attack (loadlab streams and vegeta's .bin, CSV, JSON all work)
  loadlab report results.lll

  # Machine-readable, with vegeta's keys and units plus loadlab's extras
  loadlab report -type json -output report.json results.lll

  # Latency histogram with vegeta's bucket syntax, and the HDR percentile plot data
  loadlab report -type 'hist[0,5ms,10ms,25ms,50ms,100ms,1s]' results.lll
  loadlab report -type hdrplot results.lll > plot.hgrm

  # Shards of one attack (or an attack and a vegeta archive) merged into one report
  loadlab report shard1.lll shard2.lll old-vegeta-run.bin

  # A CI gate on the whole run (the merged shards, when given several)
  loadlab report -threshold 'p99 < 250ms' -threshold 'success > 99.9%' shard-*.lll

  # A flow's run (attack -flow): its sessions and checks, and vegeta's layout per step
  loadlab report -by step journey.lll

  # Per-second figures (each interval on its own, not cumulative)
  loadlab report -every 1s results.lll

  # Follow an attack while it runs: a report per second as the results arrive
  loadlab attack -rate 500/s -duration 5m -output live.lll < targets.txt &
  loadlab report -follow -every 1s live.lll

  # From a pipe
  loadlab attack -rate 100/s -duration 5s < targets.txt | loadlab report`

// basisUsage is the help of the -basis flag every command that reports
// latencies takes (report here; plot, compare and encode too).
const basisUsage = "latency `basis`: due, the default (from when the schedule asked for each request: what a user arriving on schedule waited) or send (from when it went out, as vegeta measures). Files without due times (vegeta's) give send-time latencies either way"

func runReport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "[flags] [files...]   (no files or -: stdin)", reportExamples, stderr)
	typ := fs.String("type", "text", "report `type`: text, json, hdrplot or hist[b0,b1,...] (bucket bounds as durations, e.g. hist[0,5ms,10ms,50ms])")
	every := fs.Duration("every", 0, "write figures per `interval` of send time (e.g. 1s), each interval on its own; text and json only")
	output := fs.String("output", "-", "output `file`; - writes to stdout")
	follow := fs.Bool("follow", false, "follow one loadlab results file while an attack is still writing it; stops on Ctrl-C or after -follow-idle without new results")
	followIdle := fs.Duration("follow-idle", 10*time.Second, "with -follow, stop after this long without new results (0 = only on Ctrl-C)")
	var basis metrics.Basis
	fs.Var(&basis, "basis", basisUsage)
	strict := fs.Bool("strict", false, "stop at the first damaged block of a loadlab results file and exit 2, instead of skipping to the next good block with a warning")
	force := fs.Bool("force", false, "merge results files that are shards of different attacks (or shards and whole attacks) anyway")
	var thresholdFlags listFlag
	fs.Var(&thresholdFlags, "threshold", thresholdUsage)
	by := fs.String("by", "", "also report per `step` of a flow (-by step: vegeta's layout for each request step of a flow run with attack -flow); a flow's sessions and checks are always reported")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *by != "" && *by != "step" {
		return badinput.Field("-by", "want step (a report per flow step), got %q", *by)
	}
	ths, err := parseThresholds(thresholdFlags)
	if err != nil {
		return err
	}
	kind, buckets, err := report.ParseType(*typ)
	if err != nil {
		return badinput.Field("-type", "%v", err)
	}
	if *every < 0 {
		return badinput.Field("-every", "must be positive, got %s", *every)
	}
	if *every > 0 && kind != report.KindText && kind != report.KindJSON {
		return badinput.Field("-every", "works with -type text or json, not %s", *typ)
	}
	var inputs []report.Input
	var closeAll func()
	if *followIdle < 0 {
		return badinput.Field("-follow-idle", "want 0 (stop only on Ctrl-C) or a positive duration, got %v", *followIdle)
	}
	if *follow {
		if len(fs.Args()) != 1 || fs.Arg(0) == "-" {
			return badinput.Field("-follow", "follows exactly one results file (not stdin), got %d arguments", len(fs.Args()))
		}
		inputs, closeAll, err = followInput(ctx, fs.Arg(0), *followIdle, !*strict)
	} else {
		inputs, closeAll, err = openInputs(fs.Args(), stdin, !*strict)
	}
	if err != nil {
		return err
	}
	defer closeAll()
	members := shardMembers(inputs)
	owned, err := shardset.Check(members, *force)
	if err != nil {
		return err
	}
	if absent := shardset.Absent(members); len(absent) > 0 {
		fmt.Fprintf(stderr, "loadlab report: warning: shard %s of the split attack is absent: the report covers only the shards given, not the whole attack\n",
			strings.Join(absent, ", "))
	}
	merge := report.NewMerge(inputs...)
	var m *metrics.Metrics
	err = withOutput(*output, fs.Args(), stdout, *every > 0, func(w io.Writer) error {
		m, err = report.Run(w, merge, report.Options{Kind: kind, Buckets: buckets, Every: *every,
			Metrics: metrics.Options{Basis: basis, Owned: owned}, By: *by})
		if err != nil {
			return err
		}
		if kind == report.KindText && *every == 0 {
			if line := machineLine(inputs, m); line != "" {
				fmt.Fprintf(w, "Machine       %s\n", line)
			}
		}
		// a damaged input read strictly fails the command before the
		// output is in place
		return readProblems("report", merge, m.Accounting, stderr)
	})
	if err != nil {
		return err
	}
	return checkThresholds(ths, m, stderr)
}

// machineLine is what the machine did to the attack, as the inputs'
// trailers recorded it (every shard's combined) with the lag of the
// results read: "" when no input holds a trailer (files written before
// loadlab recorded it, vegeta's).
func machineLine(inputs []report.Input, m *metrics.Metrics) string {
	var parts []runblock.Health
	for _, in := range inputs {
		var tr *results.Trailer
		switch d := in.Dec.(type) {
		case *results.Source:
			tr = d.Trailer()
		case *results.Reader:
			tr = d.Trailer()
		}
		h := runblock.UnknownHealth()
		if tr != nil && json.Unmarshal(tr.Health, &h) == nil {
			parts = append(parts, h)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	h := runblock.LagHealth(time.Duration(runblock.Unknown), m.Lag.P99, m.Latencies.P99).WithMachine(runblock.Combine(parts, nil))
	return h.Line()
}

// openInputs opens every results file (stdin for none or "-").
func openInputs(files []string, stdin io.Reader, resync bool) ([]report.Input, func(), error) {
	if len(files) == 0 {
		files = []string{"-"}
	}
	var srcs []*results.Source
	closeAll := func() {
		for _, s := range srcs {
			s.Close()
		}
	}
	var inputs []report.Input
	for _, f := range files {
		var s *results.Source
		var err error
		if f == "-" {
			if len(files) > 1 {
				closeAll()
				return nil, nil, badinput.Errorf("stdin (-) cannot be mixed with files")
			}
			s, err = results.OpenReader(stdin, "stdin")
		} else {
			s, err = results.Open(f)
		}
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		s.Resync(resync)
		srcs = append(srcs, s)
		in := report.Input{Name: s.Name, Dec: s, Meta: s.Meta}
		if s.Meta != nil {
			in.Shard = s.Meta.Shard
		}
		inputs = append(inputs, in)
	}
	return inputs, closeAll, nil
}

// shardMembers is what the shard-set check needs of report's inputs.
func shardMembers(inputs []report.Input) []shardset.Member {
	out := make([]shardset.Member, len(inputs))
	for i, in := range inputs {
		out[i] = shardset.Member{Name: in.Name, Shard: in.Shard}
	}
	return out
}

// followInput opens a loadlab stream that an attack may still be writing
// and reads it as it grows (see results.Follow).
func followInput(ctx context.Context, path string, idle time.Duration, resync bool) ([]report.Input, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, badinput.Wrap(path, err)
	}
	src := results.Follow(ctx, f, 100*time.Millisecond, idle)
	// Check the magic first, so a vegeta file is refused instead of waited on.
	stream, ok := results.SniffStream(src)
	if !ok {
		f.Close()
		return nil, nil, badinput.At(path, 0, "-follow reads loadlab results streams only (this file is not one, or stayed empty)")
	}
	r, err := results.NewReader(stream)
	if err != nil {
		f.Close()
		return nil, nil, badinput.Wrap(path, err)
	}
	// A writer that crashed leaves a torn block; one restarted on the same
	// file appends fresh blocks after it: read past the torn one.
	r.Resync(resync)
	meta := r.Meta()
	return []report.Input{{Name: path, Dec: r, Meta: &meta}}, func() { r.Close(); f.Close() }, nil
}

// readProblems prints a warning per torn tail (exit 0: a killed attack
// leaves one) and turns a corrupt file into a bad-input error (exit 2)
// once everything before the damage has been reported.
func readProblems(cmd string, m *report.Merge, acct *metrics.Accounting, stderr io.Writer) error {
	for _, d := range m.Damaged() {
		fmt.Fprintf(stderr, "loadlab %s: warning: %s\n", cmd, d)
	}
	// One count: when the damage's own figures are a lower bound (a region
	// running over several blocks) or disagree with the sequence numbers,
	// the accounting's count, the one the report prints, is said too.
	if lost, regions, exact := m.DamageLost(); regions > 0 && acct.Known() && (!exact || uint64(lost) != acct.Missing) {
		fmt.Fprintf(stderr, "loadlab %s: warning: %d results lost in all to the damaged regions above (counted from the sequence numbers, as the Accounting line says)\n", cmd, acct.Missing)
	}
	var corrupt []report.Warning
	for _, w := range m.Warnings {
		if w.Err.Torn {
			fmt.Fprintf(stderr, "loadlab %s: warning: %s\n", cmd, w)
		} else {
			corrupt = append(corrupt, w)
		}
	}
	for i, w := range corrupt {
		if i < len(corrupt)-1 {
			fmt.Fprintf(stderr, "loadlab %s: %s\n", cmd, w)
			continue
		}
		return &badinput.Error{Msg: w.String()}
	}
	return nil
}
