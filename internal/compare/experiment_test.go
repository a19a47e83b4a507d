package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/metrics"
)

// testdata/run-001 is a real run of examples/001-step-sweep (its results
// streams and summary.json): ruby and go at four rates on two endpoints.
// Each step is compared with the other implementation's step on the same
// endpoint at the same rate, never with step 1 (ruby /v3/info at 8/s).
func TestRunFolderComparesLikeWithLike(t *testing.T) {
	runs, err := Load(nil, []string{filepath.Join("testdata", "run-001")}, LoadOptions{Basis: metrics.FromDue})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 16 {
		t.Fatalf("%d runs, want 16", len(runs))
	}
	comps, alone, err := CompareGroups(runs, "", Options{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 8 || len(alone) != 0 {
		t.Fatalf("%d groups and %d runs alone, want 8 pairs", len(comps), len(alone))
	}
	for _, c := range comps {
		if len(c.Runs) != 2 {
			t.Errorf("group %q holds %d runs", c.Report.Group, len(c.Runs))
			continue
		}
		base, other := c.Runs[0].Name, c.Runs[1].Name
		// Step folders are named "NN-ruby-v3-info-at-8-s": the same
		// endpoint and rate, ruby the baseline, go compared with it.
		cell := func(name string) string {
			name = filepath.ToSlash(name)
			step := name[strings.Index(name, "-")+1 : strings.Index(name, "/")]
			_, rest, _ := strings.Cut(step, "-")
			return rest
		}
		if !strings.Contains(base, "-ruby-") || !strings.Contains(other, "-go-") || cell(base) != cell(other) {
			t.Errorf("group %q compares %s with %s", c.Report.Group, other, base)
		}
		if !strings.HasPrefix(c.Report.Group, "api, /v3/") || !strings.Contains(c.Report.Group, " at ") {
			t.Errorf("group named %q, want the scenario and the cell", c.Report.Group)
		}
	}
}
