package compare

import (
	"strconv"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Comparison is one group's report with its runs, baseline first.
type Comparison struct {
	Report Report
	Runs   []*Run
}

// CompareGroups compares the runs of every group (see Load) that has at
// least two, each against its baseline, and returns the runs left alone in
// their group. baseline picks it: "" or a 1-based position within each
// group, or a run's name (the group holding it uses that run, the others
// their first). A baseline that fits no group is a *badinput.Error.
func CompareGroups(runs []*Run, baseline string, opt Options) (comps []Comparison, alone []*Run, err error) {
	pos, byPos := 1, true
	if baseline != "" {
		n, err := strconv.Atoi(baseline)
		if err == nil {
			pos = n
		} else {
			byPos = false
		}
	}
	found := false
	for _, g := range Groups(runs) {
		if len(g) < 2 {
			alone = append(alone, g...)
			continue
		}
		bi := 0
		switch {
		case byPos && (pos < 1 || pos > len(g)):
			return nil, nil, badinput.Field("-baseline", "position %d is out of range: %s", pos, groupSize(g))
		case byPos:
			bi, found = pos-1, true
		default:
			for i, r := range g {
				if r.Name == baseline {
					bi, found = i, true
				}
			}
		}
		ordered := append([]*Run{g[bi]}, g[:bi]...)
		ordered = append(ordered, g[bi+1:]...)
		comps = append(comps, Comparison{Report: Compare(ordered[0], ordered[1:], opt), Runs: ordered})
	}
	if len(comps) == 0 {
		return nil, alone, badinput.Errorf("need at least two runs to compare, got %d (a run is a results file or an experiment output folder)", len(runs))
	}
	if !found {
		return nil, nil, badinput.Field("-baseline", "no run is named %q", baseline)
	}
	return comps, alone, nil
}

func groupSize(g []*Run) string {
	s := "there are " + strconv.Itoa(len(g)) + " runs"
	if g[0].Group != "" {
		s += " of " + g[0].Group
	}
	return s
}
