package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// oldSweep is a real `loadlab run` folder (two builds swept over rates)
// written before the prediction had one type: its summary.json keeps each
// step's model in version 1's shape (seconds, keys of its own).
const oldSweep = "testdata/version1-run"

// TestRewriteAndArchiveVersion1RunFolder: run -rewrite rebuilds the report of
// an old run folder with the predictions it kept (the predicted | measured
// table shows the old file's figures), writes summary.json in the current
// shape, and archive add takes the folder before and after.
func TestRewriteAndArchiveVersion1RunFolder(t *testing.T) {
	t.Parallel() // reads and writes only files of its own
	dir := t.TempDir()
	run := filepath.Join(dir, "run-001")
	if err := os.CopyFS(run, os.DirFS(oldSweep)); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "runs.db")
	if _, errOut, code := runBinary(t, "", "archive", "add", "-db", db, run); code != 0 {
		t.Fatalf("archive add of the old folder: exit %d: %s", code, errOut)
	}
	// the copy has no charts folder: the rewrite makes it
	if _, err := os.Stat(filepath.Join(run, "charts")); !os.IsNotExist(err) {
		t.Fatalf("the old folder has a charts folder (%v): the test would not show the rewrite makes it", err)
	}
	// What the old file says (read as the summary package's tests check it
	// reads: the same figures as the file's).
	old, err := summary.Load(oldSweep)
	if err != nil {
		t.Fatal(err)
	}

	if out, errOut, code := runBinary(t, "", "run", "-rewrite", run); code != 0 || !strings.Contains(out, "report: ") {
		t.Fatalf("rewrite of the old folder: exit %d\n%s\n%s", code, out, errOut)
	}
	md, err := os.ReadFile(filepath.Join(run, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, st := range old.Steps {
		if st.Model == nil {
			continue
		}
		for _, sc := range st.Model.Scenarios {
			row := "| " + st.Name + " | " + sc.Name + " | "
			i := strings.Index(string(md), row)
			if i < 0 {
				t.Errorf("report.md has no predicted | measured row %q", row)
				continue
			}
			line, _, _ := strings.Cut(string(md[i:]), "\n")
			if p50, p99 := summary.FmtSeconds(sc.Latencies.P50.Seconds())+" \u2502 ", summary.FmtSeconds(sc.Latencies.P99.Seconds())+" \u2502 "; !strings.Contains(line, p50) || !strings.Contains(line, p99) {
				t.Errorf("row %q lacks the predicted p50 %q or p99 %q the old file kept", line, p50, p99)
			}
			rows++
		}
	}
	if rows == 0 {
		t.Fatal("the old folder kept no prediction: the test tests nothing")
	}
	sum, err := summary.Load(run)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(run, summary.File))
	var written struct {
		Steps []struct {
			Model map[string]any `json:"model"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(again, &written); err != nil {
		t.Fatal(err)
	}
	for i, st := range sum.Steps {
		if !reflect.DeepEqual(st.Model, old.Steps[i].Model) || !reflect.DeepEqual(st.Scenarios, old.Steps[i].Scenarios) {
			t.Errorf("step %d: the rewritten figures differ from the old file's:\n%+v\n%+v", i, st.Model, old.Steps[i].Model)
		}
		if m := written.Steps[i].Model; m != nil && m["version"] != float64(summary.StepModelVersion) {
			t.Errorf("step %d: the rewritten summary.json keeps the model as version %v", i, m["version"])
		}
	}
	if _, errOut, code := runBinary(t, "", "archive", "add", "-db", db, run); code != 0 {
		t.Fatalf("archive add of the rewritten folder: exit %d: %s", code, errOut)
	}
}
