package writeup_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment"
	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/experiment/writeup"
)

// write writes the report of a recorded run (../testdata/NAME-summary.json,
// its findings computed again) into a fresh folder and returns report.md
// and report.html. The results streams are not kept in testdata: the
// figures come from the summary, as they do in a real report.
func write(t *testing.T, name, planFile string) (*summary.Summary, string, string) {
	t.Helper()
	sum, _, md, html := writeIn(t, name, planFile)
	return sum, md, html
}

// writeIn is write that also returns the folder; with no planFile, the
// plan's shape is the one the summary recorded.
func writeIn(t *testing.T, name, planFile string) (*summary.Summary, string, string, string) {
	t.Helper()
	data, err := os.ReadFile("../testdata/" + name + "-summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if planFile != "" {
		p, err := plan.Load(planFile)
		if err != nil {
			t.Fatal(err)
		}
		sum.Design = experiment.Design(p)
	}
	sum.Findings = findings.Compute(&sum, findings.Options{})
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeup.Write(dir, &sum); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	return &sum, dir, string(md), string(html)
}

// A capacity search of 20 runs (example 005): the answer first, the runs
// as one table, each mechanism the model names said once with its steps
// listed, under 300 lines, and every step and explanation still there.
func TestCapacitySearchReportLeadsWithTheAnswer(t *testing.T) {
	sum, md, html := write(t, "capacity", "../../../examples/005-capacity-search/plan.yaml")
	lines := strings.Split(md, "\n")
	if len(lines) >= 300 {
		t.Errorf("report.md has %d lines, want under 300", len(lines))
	}
	if lines[0] != "# capacity-search" || lines[1] != "*How much search traffic does each pool hold?*" ||
		!strings.HasPrefix(lines[3], "**Capacity** (the highest rate that meets the thresholds): 16 workers: 57.8 req/s ± 2% (model: 81.3)") {
		t.Errorf("report.md does not lead with the question and the answer:\n%s", strings.Join(lines[:6], "\n"))
	}
	// The runs are one table, in rate order per configuration.
	i := strings.Index(md, "### Capacity search\n")
	if i < 0 {
		t.Fatal("no capacity search table")
	}
	rows := 0
	for _, l := range strings.Split(md[i:], "\n")[3:] {
		if !strings.HasPrefix(l, "| ") {
			break
		}
		rows++
	}
	probes := 0
	for _, r := range sum.Search {
		probes += len(r.Probes)
	}
	if rows != probes || probes != 20 {
		t.Errorf("the search table has %d rows for %d runs", rows, probes)
	}
	if regexp.MustCompile(`(?m)^(- )?In step `).MatchString(md) {
		t.Error("report.md still explains steps one paragraph each")
	}
	// Nothing lost: every step is named, and every explanation of the
	// model is there in full.
	for _, st := range sum.Steps {
		if !strings.Contains(md, st.Name) {
			t.Errorf("report.md lost step %q", st.Name)
		}
	}
	explained := regexp.MustCompile(`explains it: (.*)\.$`)
	n := 0
	for _, f := range sum.Findings {
		if m := explained.FindStringSubmatch(f.Text); f.Kind == summary.KindModel && m != nil {
			n++
			if !strings.Contains(md, m[1]) {
				t.Errorf("report.md lost the model's explanation %q", m[1])
			}
		}
	}
	if n < 3 {
		t.Errorf("only %d explanations of the model to check", n)
	}
	mechanisms := strings.Count(md, "What the model says happened in ")
	if mechanisms == 0 || mechanisms >= n {
		t.Errorf("%d explanations said as %d mechanisms: none said once for several steps", n, mechanisms)
	}
	// The HTML page is the same document: the comparison is its first
	// section, the model's note is text (no wide <pre>), and every chart
	// has its slot.
	h2 := regexp.MustCompile(`<h2>([^<]*)</h2>`).FindAllStringSubmatch(html, -1)
	if len(h2) == 0 || h2[0][1] != "Comparison" {
		t.Errorf("first section %v, want Comparison", h2)
	}
	if !strings.Contains(html, "<p>The model (loadlab model) simulated each step") || strings.Contains(html, "<pre>The model") {
		t.Error("the model's note is not a paragraph in report.html")
	}
	slots := strings.Count(html, `<div class="chart" id="chart-`)
	charts := strings.Count(html, `"xlabel":`)
	if slots == 0 || slots != charts {
		t.Errorf("%d chart slots for %d charts", slots, charts)
	}
	if !strings.Contains(html, "<details class=\"part\"><summary>Predicted and measured, every step</summary>") {
		t.Error("report.html does not collapse the predicted and measured table")
	}
}

// A matrix of endpoints, rates and implementations (example 001): cells
// read as labels, and the method names the part of the target that varies.
func TestMatrixReportNamesCells(t *testing.T) {
	_, md, _ := write(t, "sweep", "../../../examples/001-step-sweep/plan.yaml")
	for _, want := range []string{
		"`GET ${api.url}/v3/${endpoint}` (endpoint: info, buildpacks)",
		"| ruby (2 workers), /v3/info | 8/s |",
		"| go (64 workers), /v3/buildpacks | 512/s |",
		"On /v3/buildpacks at 512/s, go (64 workers) held",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "buildpacks, /v3/buildpacks") || strings.Contains(md, "`GET ${api.url}/v3/info` at") {
		t.Error("report.md names a cell twice or shows one endpoint for all")
	}
}
