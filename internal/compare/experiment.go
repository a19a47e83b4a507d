package compare

import (
	"path/filepath"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// cellGroups groups the runs of one loadlab run output folder like with
// like when its plan varies a component: the same scenario in the same
// matrix cell (rate and other variables, e.g. "api, /v3/info at 8/s"),
// across the component's variants, the first variant being the baseline.
// rels are the runs' paths inside dir. Runs the summary does not name,
// and folders without a summary or whose plan varies no component (a
// sweep of one configuration compares its steps with the first), keep
// their group.
func cellGroups(dir string, runs []*Run, rels []string) {
	sum, err := summary.Load(dir)
	if err != nil || !sum.Compares() {
		return
	}
	cell := map[string]string{}
	for _, st := range sum.Steps {
		label := sum.CellLabel(st)
		for _, sc := range st.Scenarios {
			g := sc.Name
			if label != "" {
				g += ", " + label
			}
			cell[filepath.ToSlash(filepath.Clean(sc.Results))] = g
		}
	}
	for i, r := range runs {
		if g, ok := cell[filepath.ToSlash(rels[i])]; ok {
			r.Group = g
		}
	}
}
