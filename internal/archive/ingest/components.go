package ingest

import (
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// componentFiles are the files under the run folder's components/ that the
// write-up of a cell reads (`loadlab run -rewrite`): the rendered config or
// recipe copy of every component its steps ran against, those started
// before the cell's first step and still running included. For a run
// stored whole it is every file of components/ (configs, recipes, logs).
// Names are relative to the folder, slash-separated, sorted. (A run
// stored whole stores every file of components/, walked by cellFiles.)
func componentFiles(sum *summary.Summary, c cell) []string {
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

// planCopy is the name of the plan's copy in the run folder (plan.yaml,
// plan.yml, plan.json: the plan's own extension), "" when there is none.
// The name is plan and an extension: never a path.
func planCopy(f *folder, sum *summary.Summary) string { return copyIn(f, sum.PlanCopy()) }

// copyIn is name when the folder holds a file of that name at its top,
// "" when it does not (or name is a path).
func copyIn(f *folder, name string) string {
	if strings.ContainsAny(name, `/\`) {
		return ""
	}
	if _, err := f.root.Lstat(name); err != nil {
		return ""
	}
	return name
}
