package summary

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

// Parse reads summary.json's data as any version of loadlab wrote it. It
// is the one place an old summary is brought up to date, for every
// reader of a run folder (Load, `run -rewrite`, the archive, compare):
// the old latency forms are read by ScenarioResult.UnmarshalJSON, and a
// summary written before it kept a closed loop's users (a scenario of
// rate 0 with none recorded) gets them from the plan the run ran. The
// run folder's copy of its plan (PlanCopy) is read through planCopy, only
// then, as a record (the files it names need not exist anymore) with the
// run's -set overrides applied as the run applied them; when it cannot be
// read the users stay unknown (0), as before.
func Parse(data []byte, planCopy func(name string) ([]byte, error)) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if planCopy == nil || !s.unpacedWithoutUsers() {
		return &s, nil
	}
	text, err := planCopy(s.PlanCopy())
	if err != nil {
		return &s, nil
	}
	if p, err := plan.ParseRecord(s.Plan, filepath.Dir(s.Plan), text, plan.RecordedOverrides(s.RunArgs)...); err == nil {
		s.closedUsers(p)
	}
	return &s, nil
}

// PlanCopy is the name of the run folder's copy of the plan it ran:
// plan.yaml, or plan.yml or plan.json as the plan was named.
func (s *Summary) PlanCopy() string { return "plan" + filepath.Ext(s.Plan) }

// unpacedWithoutUsers reports whether a scenario of the run had no rate
// and no users recorded: a closed loop run before summary.json kept its
// users.
func (s *Summary) unpacedWithoutUsers() bool {
	for _, st := range s.Steps {
		for _, sc := range st.Scenarios {
			if sc.Users == 0 && strings.TrimSuffix(sc.Rate, "/s") == "0" {
				return true
			}
		}
	}
	return false
}

// closedUsers fills in the users of the run's closed loops from the plan
// they ran (its steps by name, their scenarios by name).
func (s *Summary) closedUsers(p *plan.Plan) {
	byName := map[string]*plan.Step{}
	for _, st := range p.Steps {
		byName[st.Name] = st
	}
	for _, st := range s.Steps {
		ps := byName[st.Name]
		if ps == nil {
			continue
		}
		for _, sc := range st.Scenarios {
			for _, psc := range ps.Scenarios {
				if psc.Name == sc.Name && sc.Users == 0 {
					sc.Users = psc.Users()
				}
			}
		}
	}
}
