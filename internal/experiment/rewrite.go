package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/writeup"
)

// writeUp is the end of every run: the analysis (the staircases measured
// on the results streams, the findings), then summary.json and the report,
// all from what the run folder holds.
func writeUp(dir string, sum *summary.Summary, pred findings.Predictor) error {
	findings.MeasureStaircases(dir, sum)
	sum.Findings = findings.Compute(sum, findings.Options{Predictor: pred})
	if err := summary.Write(dir, sum); err != nil {
		return err
	}
	return writeup.Write(dir, sum)
}

// Rewrite analyses the run in dir again and rebuilds its report (report.md,
// report.html, the charts) and the staircases and findings in
// summary.json, from the run folder alone: nothing is run. A folder written before the summary
// recorded the plan's shape gets it from the plan's copy in the folder,
// read as a record (the files that plan names need not exist anymore,
// nor be where it says) with the run's -set overrides applied again as the
// run applied them. (The users of a closed loop an old summary did not
// keep come from the same copy, as every reader gets them: summary.Load.)
// One written before it kept the flows' figures gets them counted from
// its results streams.
func Rewrite(dir string, pred findings.Predictor) (*Outcome, error) {
	sum, err := summary.Load(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, badinput.Field("-rewrite", "%s holds no run (no %s)", dir, summary.File)
	}
	if err != nil {
		return nil, badinput.Field("-rewrite", "%v", err)
	}
	if sum.Design == nil {
		if data, err := os.ReadFile(filepath.Join(dir, sum.PlanCopy())); err == nil {
			if p, err := plan.ParseRecord(sum.Plan, filepath.Dir(sum.Plan), data, plan.RecordedOverrides(sum.RunArgs)...); err == nil {
				sum.Design = Design(p)
			}
		}
	}
	fillFlows(dir, sum)
	out := &Outcome{Summary: sum, Report: filepath.Join(dir, "report.md"), HTML: filepath.Join(dir, "report.html"), ExitCode: sum.ExitCode}
	if err := writeUp(dir, sum, pred); err != nil {
		return nil, fmt.Errorf("rewriting %s: %w", dir, err)
	}
	return out, nil
}
