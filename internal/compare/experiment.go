package compare

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
)

// cellGroups groups the runs of one loadlab run output folder like with
// like when its plan varies a component: the same scenario in the same
// matrix cell (rate and other variables, e.g. "api, /v3/info at 8/s"),
// across the component's variants, the first variant being the baseline.
// rels are the runs' paths inside the folder. Runs the summary does not
// name, and folders without a summary or whose plan varies no component (a
// sweep of one configuration compares its steps with the first), keep
// their group.
func cellGroups(sum *summary.Summary, runs []*Run, rels []string) {
	if sum == nil || !sum.Compares() {
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

// closedLoops gives the runs of a loadlab run folder that were closed
// loops their users, from its summary (nil: not a run folder). byUsers,
// when several folders are compared, makes a closed loop's group its
// scenario and users ("page, 32 users"), so that two sweeps are compared
// users against users rather than by the steps' places in their folders;
// a folder where two runs would share a group (its plan varies more than
// the users) keeps the groups by path.
func closedLoops(sum *summary.Summary, runs []*Run, rels []string, byUsers bool) {
	if sum == nil {
		return
	}
	type closed struct {
		users int
		group string
	}
	byFile := map[string]closed{}
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			if sc.Closed() {
				byFile[filepath.ToSlash(filepath.Clean(sc.Results))] = closed{sc.Users, ClosedGroup(sc.Name, sc.Users)}
			}
		}
	}
	groups := map[string]*Run{}
	unique := true
	for i, r := range runs {
		c, ok := byFile[filepath.ToSlash(rels[i])]
		if !ok {
			continue
		}
		r.Users = c.users
		if groups[c.group] != nil {
			unique = false
		}
		groups[c.group] = r
	}
	if !byUsers || !unique {
		return
	}
	for i, r := range runs {
		if c, ok := byFile[filepath.ToSlash(rels[i])]; ok {
			r.Group = c.group
		}
	}
}

// ClosedGroup is the group of a closed loop of users running scenario
// when runs are compared users against users: "page, 32 users".
func ClosedGroup(scenario string, users int) string {
	return scenario + ", " + load.Closed(users).String()
}

// replicates joins the runs of a loadlab run folder that are replicates
// of one cell (a plan run with repeat: N, whose steps carry their
// replicate in the variable plan.RepeatVar): the same scenario with the
// same variables but the replicate and the same variants become one side
// (Replicated), named by its first replicate and the count, at the
// first's place. rels are the runs' paths inside the folder.
func replicates(sum *summary.Summary, runs []*Run, rels []string) []*Run {
	if sum == nil {
		return runs
	}
	key := map[string]string{}
	for _, st := range sum.Steps {
		if st.Vars[plan.RepeatVar] == "" {
			continue
		}
		var parts []string
		for k, v := range st.Vars {
			if k != plan.RepeatVar {
				parts = append(parts, "v:"+k+"="+v)
			}
		}
		for k, v := range st.Variants {
			parts = append(parts, "c:"+k+"="+v)
		}
		sort.Strings(parts)
		for _, sc := range st.Scenarios {
			key[filepath.ToSlash(filepath.Clean(sc.Results))] = sc.Name + "\x00" + strings.Join(parts, "\x00")
		}
	}
	if len(key) == 0 {
		return runs
	}
	var out []*Run
	members := map[string][]*Run{}
	first := map[string]int{}
	for i, r := range runs {
		k, ok := key[filepath.ToSlash(rels[i])]
		if !ok {
			out = append(out, r)
			continue
		}
		if _, seen := first[k]; !seen {
			first[k] = len(out)
			out = append(out, nil)
		}
		members[k] = append(members[k], r)
	}
	for k, i := range first {
		m := members[k]
		out[i] = Replicated(fmt.Sprintf("%s (%d repeats)", m[0].Name, len(m)), m)
	}
	return out
}
