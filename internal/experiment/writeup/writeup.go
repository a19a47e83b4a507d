// Package writeup writes a run's report from its run folder: report.md
// (with SVG charts in charts/) and a self-contained report.html, from the
// Summary and the raw data beside it (results streams, text reports,
// samples, the plan's copy, the components' rendered configs and recipes).
// It reads nothing else (but the recipe of a run made before runs kept a
// copy, while it is still where the run found it), so the report of a run
// can be rebuilt at any time, wherever the folder is (loadlab run
// -rewrite). The report is one
// document (doc.go), built once (build.go and the files it calls: the
// answer first, one table, what differs from the model, then the detail,
// collapsed) and rendered twice: by a Markdown text/template (markdown.go)
// and by an HTML html/template (html.go). It also holds the terminal's
// compact table of a run (Brief).
package writeup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/experiment/sampler"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/results"
)

// Write writes report.md, report.html and the charts of the run in dir,
// whose figures sum holds.
func Write(dir string, sum *summary.Summary) error {
	f, err := readFolder(dir, sum)
	if err != nil {
		return err
	}
	cs := charts{perStep: make([][]chartFile, len(sum.Steps))}
	for i, st := range sum.Steps {
		cs.perStep[i] = stepCharts(st, f.steps[i])
		if err := writeSVGs(dir, cs.perStep[i]); err != nil {
			return err
		}
	}
	cs.overall = append(append(kneeCharts(sum), successOverlay(sum, f.steps)...), percentileCharts(sum, f.steps)...)
	if err := writeSVGs(dir, cs.overall); err != nil {
		return err
	}
	cs.metrics = metricOverlays(sum, f.steps)
	if err := writeSVGs(dir, cs.metrics); err != nil {
		return err
	}
	d := build(sum, f, cs)
	md, err := markdown(d)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md), 0o644); err != nil {
		return err
	}
	return writeHTML(dir, d)
}

// folder is what the report takes from the run folder besides the summary.
type folder struct {
	dir   string
	plan  string // the plan's text
	steps []*stepData
}

// stepData is one step's raw data, read back.
type stepData struct {
	samples []sampler.Sample
	coll    *plot.Collector    // every scenario's results, for the time charts
	metrics []*metrics.Metrics // per scenario, for the percentile charts
	texts   []string           // per scenario, the text report
}

func readFolder(dir string, sum *summary.Summary) (*folder, error) {
	f := &folder{dir: dir}
	plan, err := os.ReadFile(filepath.Join(dir, "plan"+filepath.Ext(sum.Plan)))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	f.plan = string(plan)
	rows, err := summary.LoadSamples(dir)
	if err != nil {
		return nil, err
	}
	byStep := map[int][]sampler.Sample{}
	for _, r := range rows {
		byStep[r.Step] = append(byStep[r.Step], sampler.Sample{Time: r.At(), Series: r.Series, Unit: r.Unit, Value: r.Value})
	}
	for _, st := range sum.Steps {
		d := &stepData{samples: byStep[st.Index+1], coll: plot.NewCollector(0)}
		for _, sc := range st.Scenarios {
			m := metrics.New()
			if err := readResults(filepath.Join(dir, sc.Results), m, d.coll); err != nil {
				return nil, err
			}
			m.Close()
			text, err := os.ReadFile(filepath.Join(dir, sc.Report))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			d.metrics = append(d.metrics, m)
			d.texts = append(d.texts, string(text))
		}
		f.steps = append(f.steps, d)
	}
	return f, nil
}

// componentFile is where the folder in dir holds a component's file as
// summary.json records it, and whether it is there. A copy the run kept
// in its components/ (a proxy's rendered config, an origin's recipe) is
// read from this folder's components/ only, wherever the folder is now:
// the path recorded may be another run's folder (the original of a
// copied folder, or a new run written where this one was). A file the run
// left where the plan named it (an older run's recipe) is read as
// recorded.
func componentFile(dir string, c summary.ComponentRun) (path string, kept bool) {
	if k := c.KeptFile(); k != "" {
		return filepath.Join(dir, filepath.FromSlash(k)), true
	}
	return c.File, false
}

// readResults adds a scenario's results stream to its metrics and to the
// step's charts. A missing stream (the scenario never ran) adds nothing; a
// stream cut short (a crash) adds what was written.
func readResults(path string, m *metrics.Metrics, coll *plot.Collector) error {
	src, err := results.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer src.Close()
	// A crash can leave a torn last block: the write-up draws what is
	// there (the report's accounting line says what is missing).
	if _, _, err := results.ReadAll(src, results.Tee(m, coll), results.KeepBefore); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
