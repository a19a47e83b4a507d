package summary

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWriteLoad(t *testing.T) {
	dir := t.TempDir()
	s := &Summary{Plan: "plan.yaml", Name: "n", Started: time.Unix(1700000000, 5).UTC(), Design: &Design{Steps: 1, Axes: []Axis{{Key: "rate", Values: []string{"8"}}}},
		Steps:    []*StepResult{{Name: "8 rps", Vars: map[string]string{"rate": "8"}, Scenarios: []*ScenarioResult{{Name: "search", Staircase: &Staircase{Steps: 2}}}}},
		Findings: []Finding{{Kind: KindSweep, Text: "held."}, {Kind: KindCause, Text: "Why: the pool.", Heuristic: true}}}
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("loaded %+v, wrote %+v", got, s)
	}
	if got.RateKey(got.Steps[0]) != "8" || got.Main() != "search" {
		t.Errorf("rate key %q, main %q", got.RateKey(got.Steps[0]), got.Main())
	}
	if txt := Texts(got.Findings); txt[0] != "held." || !strings.HasPrefix(txt[1], "Why: the pool. (A heuristic") {
		t.Errorf("texts %q", txt)
	}
}

// Summaries written before findings had kinds hold plain sentences.
func TestLoadPlainFindings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, File), []byte(`{"name": "old", "steps": [], "findings": ["At 69 req/s, fixed did better."]}`), 0o644)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Finding{{Text: "At 69 req/s, fixed did better."}}; !reflect.DeepEqual(s.Findings, want) {
		t.Errorf("findings %+v", s.Findings)
	}
	os.WriteFile(filepath.Join(dir, File), []byte(`{"steps": [`), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), File) {
		t.Errorf("a torn summary: %v", err)
	}
}

func TestSamplesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rows := []Sample{{Time: 1700000000.25, Step: 1, Series: "proxy cpu %", Unit: "CPU %", Value: 12.5}}
	if err := WriteSamples(dir, rows); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSamples(dir)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("got %+v, %v", got, err)
	}
	if at := got[0].At(); at.Unix() != 1700000000 || at.Nanosecond() != 250000000 {
		t.Errorf("At %v", at)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "samples.csv"))
	if want := "time_unix,step,series,unit,value\n1700000000.250,1,proxy cpu %,CPU %,12.5\n"; string(csv) != want {
		t.Errorf("csv %q", csv)
	}
	if none, err := LoadSamples(t.TempDir()); none != nil || err != nil {
		t.Errorf("no samples.json: %v %v", none, err)
	}
}
