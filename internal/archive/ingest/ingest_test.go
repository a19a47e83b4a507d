package ingest

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/summary"
)

const runDir = "testdata/regression-hunt" // a real `loadlab run` of examples/004-regression-hunt

func readAll(t *testing.T, f archive.BundleFile) string {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunFolderOneRunPerBuild(t *testing.T) {
	bs, warns, err := Bundles(context.Background(), []string{runDir}, Options{Labels: map[string]string{"commit": "abc123"}})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	sum, err := summary.Load(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 6 {
		t.Fatalf("%d runs, want one per build (6)", len(bs))
	}
	contents := map[string]bool{}
	for i, b := range bs {
		st := sum.Steps[i]
		sc := st.Scenarios[0]
		r := b.Run
		if r.Labels["build"] != st.Variants["build"] || r.Labels["commit"] != "abc123" || r.Name != "regression-hunt" || r.Source != "run" {
			t.Errorf("run %d: labels %v name %q source %q", i, r.Labels, r.Name, r.Source)
		}
		if len(r.Steps) != 1 || r.Steps[0].Index != st.Index || r.Steps[0].Scenario != "page" || !r.Started.Equal(st.Started) || !r.Ended.Equal(st.Ended) {
			t.Errorf("run %d steps: %+v", i, r.Steps)
		}
		// the figures loadlab run recorded for the step are the archive's
		if r.Requests != sc.Requests || r.Latencies.P99 != sc.Latency.P99 || r.Latencies.P50 != sc.Latency.P50 ||
			(r.Latencies.Max-sc.Latency.Max).Abs() > time.Microsecond || r.Success != sc.Success {
			t.Errorf("run %d: figures %+v, summary says requests %d p50 %v p99 %v max %v success %v", i, r.Figures, sc.Requests,
				sc.Latency.P50, sc.Latency.P99, sc.Latency.Max, sc.Success)
		}
		if b.Scenarios["page"].Latencies != r.Latencies {
			t.Errorf("run %d: the scenario's figures differ from the run's with one scenario", i)
		}
		h, err := hdrhistogram.Decode(b.Histograms[archive.StepKey{Step: st.Index, Scenario: "page"}])
		if err != nil || h.TotalCount() == 0 {
			t.Errorf("run %d histogram: %v", i, err)
		}
		txt, _ := os.ReadFile(filepath.Join(runDir, sc.Report))
		if !strings.HasPrefix(r.Steps[0].Text, "Requests      [total, rate, throughput]") || !strings.Contains(string(txt), "800,") {
			t.Errorf("run %d text report:\n%s", i, r.Steps[0].Text)
		}
		names := map[string]archive.BundleFile{}
		for _, f := range b.Files {
			names[f.Name] = f
		}
		for _, want := range []string{"plan.yaml", "summary.json", "report.md", sc.Results, sc.Report, st.Components[0].Log, "samples.json", "samples.csv", StepLog} {
			if _, ok := names[want]; !ok {
				t.Errorf("run %d: %s not stored (files %v)", i, want, b.Files)
			}
		}
		if strings.Contains(strings.Join(keys(names), " "), "steps/0"+string(rune('1'+(i+1)%6))) && i != 5 {
			t.Errorf("run %d stores another build's step files: %v", i, keys(names))
		}
		var samples []struct{ Step int }
		json.Unmarshal([]byte(readAll(t, names["samples.json"])), &samples)
		if len(samples) == 0 {
			t.Errorf("run %d: no samples kept", i)
		}
		for _, s := range samples {
			if s.Step != i+1 {
				t.Fatalf("run %d keeps a sample of step %d", i, s.Step)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(readAll(t, names["samples.csv"])), "\n")[1:] {
			if strings.Split(line, ",")[1] != string(rune('1'+i)) {
				t.Fatalf("run %d keeps the csv sample %q", i, line)
			}
		}
		if log := readAll(t, names[StepLog]); !strings.Contains(log, st.Started.UTC().Format("2006-01-02T15:04:05.000000000Z")+" step") {
			t.Errorf("run %d step log lacks the step's start instant:\n%s", i, log)
		}
		if contents[r.Content] {
			t.Errorf("run %d: content hash shared with another build", i)
		}
		contents[r.Content] = true
		if !strings.Contains(r.Plan, "regression-hunt") || !strings.Contains(r.Machine, "{") || r.Command != "loadlab run plan.yaml" {
			t.Errorf("run %d: plan %q machine %q command %q", i, r.Plan[:20], r.Machine, r.Command)
		}
	}
}

func keys[V any](m map[string]V) []string { return sortedKeys(m) }

// vegeta's own report of its results file is the truth for vegeta's files.
func TestVegetaFilesMatchVegetasReport(t *testing.T) {
	var want struct {
		Requests  uint64  `json:"requests"`
		Success   float64 `json:"success"`
		Latencies struct {
			P50  time.Duration `json:"50th"`
			Mean time.Duration `json:"mean"`
			Max  time.Duration `json:"max"`
		} `json:"latencies"`
	}
	js, _ := os.ReadFile("testdata/withbody.report.json")
	if err := json.Unmarshal(js, &want); err != nil {
		t.Fatal(err)
	}
	dir := "../../results/testdata/vegeta/"
	for _, f := range []string{"withbody.bin", "withbody.csv", "withbody.json"} {
		bs, _, err := Bundles(context.Background(), []string{dir + f}, Options{})
		if err != nil || len(bs) != 1 {
			t.Fatalf("%s: %v", f, err)
		}
		r := bs[0].Run
		if r.Source != "vegeta" || r.Name != "withbody" || r.Requests != want.Requests || r.Success != want.Success ||
			r.Latencies.Max != want.Latencies.Max || r.Latencies.Mean != want.Latencies.Mean {
			t.Errorf("%s: %+v, vegeta says %+v", f, r, want)
		}
		// percentiles from an HDR histogram with 3 significant digits
		if d := r.Latencies.P50 - want.Latencies.P50; d < -want.Latencies.P50/500 || d > want.Latencies.P50/500 {
			t.Errorf("%s: p50 %v, vegeta says %v", f, r.Latencies.P50, want.Latencies.P50)
		}
		if len(bs[0].Files) != 1 || bs[0].Files[0].Name != f || len(r.Steps) != 1 || r.Steps[0].Text == "" {
			t.Errorf("%s: files %v steps %v", f, bs[0].Files, r.Steps)
		}
	}
	// several whole files are several runs
	bs, _, err := Bundles(context.Background(), []string{dir + "withbody.bin", dir + "mixed.bin"}, Options{Name: "old"})
	if err != nil || len(bs) != 2 || bs[1].Run.Name != "old" {
		t.Errorf("two files: %v, %d runs", err, len(bs))
	}
}

func TestNotResultsIsBadInput(t *testing.T) {
	dir := t.TempDir()
	notResults := filepath.Join(dir, "notes.txt")
	os.WriteFile(notResults, []byte("hello, this is not a results file\n"), 0o644)
	emptyDir := filepath.Join(dir, "folder")
	os.Mkdir(emptyDir, 0o755)
	for _, p := range []string{notResults, emptyDir, filepath.Join(dir, "missing.lll")} {
		_, _, err := Bundles(context.Background(), []string{p}, Options{})
		if !badinput.Is(err) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one bad-input line naming it", p, err)
		}
	}
}

// A run folder whose matrix varies no component is one run; its figures
// are `loadlab report` of all its results files at once.
func TestPlainRunFolderIsOneRunWithReportsFigures(t *testing.T) {
	dir, sum := copyRun(t)
	sum.Design.Axes[0].Component = false // as a sweep of a variable would be
	if err := summary.Write(dir, sum); err != nil {
		t.Fatal(err)
	}
	bs, _, err := Bundles(context.Background(), []string{dir}, Options{Name: "sweep"})
	if err != nil || len(bs) != 1 {
		t.Fatalf("%v, %d runs", err, len(bs))
	}
	r := bs[0].Run
	var files []diskRef
	for _, st := range sum.Steps {
		ref, err := argFile(filepath.Join(dir, st.Scenarios[0].Results))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ref)
	}
	want, err := reportFiles(context.Background(), files) // what `loadlab report FILES...` computes
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 6 || r.Name != "sweep" || len(r.Labels) != 0 || r.Figures.Latencies != figures(want.m).Latencies ||
		r.Requests != 4800 || r.Rate != want.m.Rate || r.Success != want.m.Success || r.Throughput != want.m.Throughput {
		t.Errorf("run figures %+v\nloadlab report of its files %+v", r.Figures, figures(want.m))
	}
	if bs[0].Scenarios["page"].Latencies != r.Latencies {
		t.Errorf("the only scenario's figures differ from the run's")
	}
}

// copyRun copies the regression hunt's run folder to a temporary folder
// and reads its summary there.
func copyRun(t *testing.T) (string, *summary.Summary) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(runDir)); err != nil {
		t.Fatal(err)
	}
	sum, err := summary.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, sum
}
