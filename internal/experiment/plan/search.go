package plan

import (
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/attack/schedule"
)

// Search is a capacity search: instead of running its steps as written,
// the plan finds, per configuration, the highest rate of one scenario at
// which the thresholds hold, by bracketing and bisection on real runs.
type Search struct {
	Scenario  string  // whose rate is searched
	Min, Max  float64 // requests/s
	Precision float64 // relative width of the answer, e.g. 0.02
	Line      int
}

type rawSearch struct {
	Scenario  Str `yaml:"scenario"`
	Rate      Str `yaml:"rate"`
	Precision Str `yaml:"precision"`
	Per       Str `yaml:"per"`
}

// DefaultSearchPrecision is the width of a search's answer when the plan
// gives none.
const DefaultSearchPrecision = 0.02

func (b *builder) search() error {
	rs := b.raw.Search
	if rs == nil {
		return nil
	}
	s := &Search{Scenario: rs.Scenario.Value, Precision: DefaultSearchPrecision, Line: rs.Rate.Line}
	if s.Scenario == "" && len(b.plan.Steps) > 0 && len(b.plan.Steps[0].Scenarios) > 0 {
		s.Scenario = b.plan.Steps[0].Scenarios[0].Name
	}
	for _, st := range b.plan.Steps {
		var found *Scenario
		for _, sc := range st.Scenarios {
			if sc.Name == s.Scenario {
				found = sc
			}
		}
		if found == nil {
			return at(rs.Scenario.Line, "search.scenario: step %q has no scenario %q", st.Name, s.Scenario)
		}
		if found.Rate.IsRamp() || len(found.Rate.Steps) > 0 || found.Rate.From.IsZero() {
			return at(found.Line, "search.scenario: scenario %s must have a constant rate to be searched, got %q", s.Scenario, found.Rate.Text)
		}
	}
	lo, hi, ok := strings.Cut(rs.Rate.Value, "..")
	if !ok {
		return at(rs.Rate.Line, "search.rate: want a range of rates such as 100..5000 (requests/s), got %q", rs.Rate.Value)
	}
	var err error
	if s.Min, err = perSecond(lo); err != nil {
		return at(rs.Rate.Line, "search.rate: %v", err)
	}
	if s.Max, err = perSecond(hi); err != nil {
		return at(rs.Rate.Line, "search.rate: %v", err)
	}
	if s.Min <= 0 || s.Max <= s.Min {
		return at(rs.Rate.Line, "search.rate: want 0 < low < high, got %q", rs.Rate.Value)
	}
	if rs.Precision.Set {
		v := strings.TrimSpace(rs.Precision.Value)
		pct := strings.HasSuffix(v, "%")
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if pct {
			f /= 100
		}
		if err != nil || f <= 0 || f > 0.5 {
			return at(rs.Precision.Line, "search.precision: want a width such as 2%% (at most 50%%), got %q", rs.Precision.Value)
		}
		s.Precision = f
	}
	if per := rs.Per.Value; per != "" {
		c := b.plan.Component(per)
		if c == nil || len(c.Variants) < 2 {
			return at(rs.Per.Line, "search.per: %q is not a component with variants to compare", per)
		}
	}
	b.plan.Search = s
	return nil
}

// perSecond reads a rate in the attack's grammar as requests per second.
func perSecond(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "/") {
		s += "/s"
	}
	r, err := schedule.ParseRate(s)
	if err != nil {
		return 0, err
	}
	return r.PerSecond(), nil
}
