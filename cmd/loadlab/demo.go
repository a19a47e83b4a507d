package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment"
	"github.com/loadlab/loadlab/internal/experiment/demo"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/writeup"
	"github.com/loadlab/loadlab/internal/model"
)

func init() {
	register(command{
		name:    "demo",
		summary: "replay the search-flood incident (overflow vs fixed pool under a /search flood) in under two minutes",
		order:   1,
		run:     runDemo,
	})
}

const demoExamples = `  # Run it: starts an origin (1 s latency) and a proxy on loopback, floods
  # /search at 40, 69 and 80 requests/s with /news polled at 1/s, once with an
  # overflow pool (32 + 256) and once with a fixed pool (64), both managed by
  # a serial pool manager as poolboy's, then prints a ten-line summary
  loadlab demo

  # Keep the output somewhere else; the plan it ran is in <out>/plan/
  loadlab demo -out /tmp/demo
  loadlab run -out /tmp/demo-again /tmp/demo/plan/plan.yaml`

func runDemo(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[flags]", demoExamples, stderr)
	out := fs.String("out", "", "output `folder` (default ./loadlab-demo-<timestamp>)")
	quiet := fs.Bool("quiet", false, "no progress lines while it runs")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badinput.Field("", "unexpected argument %q (the demo takes no plan; see loadlab run)", fs.Arg(0))
	}
	dir := *out
	if dir == "" {
		dir = "loadlab-demo-" + time.Now().Format("20060102-150405")
	}
	p, err := demo.Load(filepath.Join(dir, "plan"))
	if err != nil {
		return err
	}
	var log io.Writer = stderr
	if *quiet {
		log = nil
	}
	if log != nil {
		fmt.Fprintf(log, "loadlab demo: %d steps of about %s each, under two minutes in all; Ctrl-C stops and still writes the report\n",
			len(p.Steps), p.Steps[0].Scenarios[0].Duration+p.Cooldown)
	}
	start := time.Now()
	res, err := experiment.Run(ctx, experiment.Options{Plan: p, Out: dir, Version: version(), Log: log, Model: model.Planner{Seed: 1}})
	if err != nil {
		if res == nil {
			return err
		}
		fmt.Fprintf(stderr, "loadlab demo: writing the report: %v\n", err)
	}
	s := res.Summary
	fmt.Fprintf(stdout, "\nloadlab demo (%s): the search-flood incident at laptop scale: /search flooded, /news polled at 1/s, origin answering in 1 s:\n", time.Since(start).Round(time.Second))
	fmt.Fprint(stdout, writeup.Brief(s))
	for _, f := range demoFindings(s.Findings) {
		fmt.Fprintln(stdout, f)
	}
	abs, _ := filepath.Abs(res.Report)
	fmt.Fprintf(stdout, "Report: %s (charts: report.html)\n", abs)
	if s.Interrupted {
		return exitError{code: experiment.ExitInterrupted, msg: "interrupted; the report covers the steps that ran"}
	}
	if s.Aborted != "" {
		return exitError{code: experiment.ExitAborted, msg: "stopped early: " + s.Aborted}
	}
	return nil // the demo's thresholds illustrate the report; they do not fail it
}

// demoFindings picks the four findings that tell the story, in this order:
// what happened (the first finding), why (the pool's figures), what it did
// to the other route, what the overflow pool cost below its limit; notes
// about disturbed steps always follow.
func demoFindings(all []summary.Finding) []string {
	var out, notes []string
	rest := all
	if len(all) > 0 && all[0].Kind != summary.KindDisturbed {
		out = append(out, "Finding: "+all[0].String())
		rest = all[1:]
	}
	// Why (from the model when it covered the steps, else the heuristic),
	// the other route, the cost, and whether the model's predictions held.
	for _, kinds := range [][]string{{summary.KindModel, summary.KindCause}, {summary.KindShared}, {summary.KindCost}, {summary.KindPrediction}} {
		if f, ok := firstOf(rest, kinds); ok {
			out = append(out, f.String())
		}
	}
	for _, f := range all {
		if f.Kind == summary.KindDisturbed {
			notes = append(notes, "Note: "+f.String())
		}
	}
	return append(out, notes...)
}

// firstOf is the first finding of the first kind that has one. Among the
// model's explanations it prefers one about a serial manager falling
// behind: the demo's collapse.
func firstOf(fs []summary.Finding, kinds []string) (summary.Finding, bool) {
	for _, kind := range kinds {
		var first *summary.Finding
		for i := range fs {
			if fs[i].Kind != kind {
				continue
			}
			if first == nil {
				first = &fs[i]
			}
			if kind == summary.KindModel && strings.Contains(fs[i].Text, "serial manager") {
				return fs[i], true
			}
		}
		if first != nil {
			return *first, true
		}
	}
	return summary.Finding{}, false
}
