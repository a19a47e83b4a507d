package writeup

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

func readSummary(t *testing.T, path string) *summary.Summary {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	return &sum
}

func TestBrief(t *testing.T) {
	sum := readSummary(t, "../testdata/demo-summary.json")
	// The demo plan's matrix: the proxy's two pools, then the rate.
	sum.Design = &summary.Design{Compares: true, Axes: []summary.Axis{{Key: "proxy", Values: []string{"overflow", "fixed"}, Component: true}, {Key: "rate", Values: []string{"40", "69", "80"}}}}
	got := Brief(sum)
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "32 workers + 256 overflow") || !strings.Contains(lines[0], "64 workers, no overflow") ||
		!strings.Contains(lines[3], "80 req/s") || !strings.Contains(lines[3], "14.48% ok, p99 1.438s") || !strings.Contains(lines[3], "82.71% ok, p99 1.499s") {
		t.Errorf("brief:\n%s", got)
	}
}
