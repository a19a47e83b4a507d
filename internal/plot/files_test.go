package plot

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/results/resultstest"
)

// writeStream writes rs to a loadlab stream at path.

func TestTimelineAnchor(t *testing.T) {
	tl := NewTimeline(time.Second)
	tl.Anchor(t0)
	tl.Add(&results.Result{Sent: t0.Add(1500 * time.Millisecond), Code: 200})
	tl.Add(&results.Result{Sent: t0.Add(2100 * time.Millisecond), Code: 200})
	tl.Anchor(t0.Add(time.Hour)) // too late: ignored
	pts := tl.Rates(t0)[0].Points
	if len(pts) != 3 || pts[0] != (Point{1, 1}) || pts[1] != (Point{2, 1}) || pts[2] != (Point{3, 1}) {
		t.Errorf("sent/s from the anchor: %v", pts)
	}
}

// TestReadRunsShardSet: the files of a run are one run (one series set,
// one distribution), and its time charts start at the run's Start, where
// the first request was due, not at the first send.
func TestReadRunsShardSet(t *testing.T) {
	dir := t.TempDir()
	rs := staircase(100, 3)
	start := t0.Add(-700 * time.Millisecond) // the first request is sent late
	var files []string
	for i := range 3 {
		var part []results.Result
		for k := i; k < len(rs); k += 3 {
			part = append(part, rs[k])
		}
		p := filepath.Join(dir, "shard"+string(rune('1'+i))+".lll")
		resultstest.WriteFile(t, p, results.Meta{}, part)
		files = append(files, p)
	}
	whole := filepath.Join(dir, "whole.lll")
	resultstest.WriteFile(t, whole, results.Meta{}, rs)

	fs, err := ReadRuns([]Run{{Name: "shard*.lll", Paths: files, Start: start}}, 0, metrics.FromDue, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Files) != 1 || fs.Files[0].Name != "shard*.lll" || fs.Files[0].Metrics.Requests != 300 || len(fs.Distributions) != 1 {
		t.Fatalf("runs %+v", fs.Files)
	}
	ta := fs.Axis()
	if !ta.Origin.Equal(start) || ta.Span < 4.68 || ta.Span > 4.70 {
		t.Errorf("axis from %v over %vs, want from the start over 4.69s (0.7s before the first send, 1s after the last)", ta.Origin, ta.Span)
	}
	charts := fs.Charts("t")
	for _, s := range charts[0].Series {
		if strings.Contains(s.Name, "shard") {
			t.Errorf("one run has series named by file: %q", s.Name)
		}
	}
	sent := charts[1].Series[0].Points
	if sent[0].X != 0 || sent[0].Y != 30 || sent[1].Y != 100 {
		t.Errorf("sent/s from the start instant: %v", sent[:3])
	}

	// The same results as a run of their own and beside it: two runs,
	// each one series set, 600 requests.
	fs, err = ReadRuns([]Run{{Name: "whole.lll", Paths: []string{whole}}, {Name: "shard*.lll", Paths: files, Start: start}}, 0, metrics.FromDue, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Files) != 2 || fs.Collector.Timeline.Count() != 600 || !fs.Axis().Origin.Equal(start) {
		t.Fatalf("two runs: %d runs, %d results, axis from %v", len(fs.Files), fs.Collector.Timeline.Count(), fs.Axis().Origin)
	}
	names := map[string]bool{}
	for _, s := range fs.Charts("t")[0].Series {
		names[strings.Fields(s.Name)[0]] = true
	}
	if len(names) != 2 || !names["whole.lll"] || !names["shard*.lll"] {
		t.Errorf("latency series of two runs: %v", names)
	}
	if _, err := ReadRuns([]Run{{Name: "x", Paths: []string{filepath.Join(dir, "nope.lll")}}}, 0, metrics.FromDue, nil); err == nil {
		t.Error("a missing file was read")
	}
}
