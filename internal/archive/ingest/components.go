package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// componentFiles are the files under the run folder's components/ that the
// write-up of a cell reads (`loadlab run -rewrite`): the rendered config or
// recipe copy of every component its steps ran against, those started
// before the cell's first step and still running included. For a run
// stored whole it is every file of components/ (configs, recipes, logs).
// Names are relative to the folder, slash-separated, sorted.
func componentFiles(dir string, sum *summary.Summary, c cell) []string {
	if len(c.steps) == len(sum.Steps) {
		return walkFiles(dir, "components")
	}
	inCell := map[int]bool{}
	for _, st := range c.steps {
		inCell[st.Index] = true
	}
	var names []string
	running := map[string]summary.ComponentRun{} // by component, its last start
	for _, st := range sum.Steps {
		for _, cr := range st.Components {
			running[cr.Name] = cr
		}
		if !inCell[st.Index] {
			continue
		}
		for _, cr := range running {
			if f := cr.KeptFile(); f != "" {
				names = append(names, f)
			}
		}
		for _, cr := range st.Deaths {
			if f := cr.KeptFile(); f != "" {
				names = append(names, f)
			}
		}
	}
	sort.Strings(names)
	return names
}

// walkFiles are the regular files under dir/sub, relative to dir, sorted.
func walkFiles(dir, sub string) []string {
	var names []string
	filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if rel, err := filepath.Rel(dir, p); err == nil {
				names = append(names, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// planCopy is the name of the plan's copy in the run folder (plan.yaml,
// plan.yml, plan.json: the plan's own extension), "" when there is none.
func planCopy(dir string, sum *summary.Summary) string {
	name := "plan" + filepath.Ext(sum.Plan)
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		return ""
	}
	return name
}
