package summary

import (
	"fmt"
	"strings"
	"time"
)

// Healthy is the success ratio under which a step counts as failing.
const Healthy = 0.99

// Scenario returns the step's scenario of that name, or nil.
func (st *StepResult) Scenario(name string) *ScenarioResult {
	for _, sc := range st.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

// Main is the name of the scenario the findings follow: the first step's
// first scenario ("" when no step ran).
func (s *Summary) Main() string {
	if len(s.Steps) == 0 || len(s.Steps[0].Scenarios) == 0 {
		return ""
	}
	return s.Steps[0].Scenarios[0].Name
}

// ScenarioNames lists scenario names in first-seen order.
func (s *Summary) ScenarioNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, st := range s.Steps {
		for _, sc := range st.Scenarios {
			if !seen[sc.Name] {
				seen[sc.Name] = true
				names = append(names, sc.Name)
			}
		}
	}
	return names
}

// Disturbed says why a step's figures are not trustworthy: requests the
// generator could not send because it fell behind, or sent more than half
// a second late ("" when they are). Requests dropped at max_workers are
// not a disturbance: the target held that many unanswered, and they count
// as failures.
func (st *StepResult) Disturbed() string {
	for _, sc := range st.Scenarios {
		if behind := sc.DroppedBehind(); behind > 0 && float64(behind) > 0.005*float64(sc.Requests) {
			return fmt.Sprintf("%d %s requests not sent", behind, sc.Name)
		}
		if sc.MaxLag > 0.5 {
			return fmt.Sprintf("%s requests up to %s late", sc.Name, FmtSeconds(sc.MaxLag))
		}
	}
	return ""
}

// RateKey is the step's non-component matrix variables, e.g. "60": steps
// sharing it differ only in configuration.
func (s *Summary) RateKey(st *StepResult) string {
	var parts []string
	if s.Design != nil {
		for _, ax := range s.Design.Axes {
			if !ax.Component {
				parts = append(parts, st.Vars[ax.Key])
			}
		}
	}
	return strings.Join(parts, ", ")
}

// Compares reports whether the steps compare configurations: a component
// with several variants.
func (s *Summary) Compares() bool { return s.Design != nil && s.Design.Compares }

// Axes is the plan's matrix (none when the steps were listed).
func (s *Summary) Axes() []Axis {
	if s.Design == nil {
		return nil
	}
	return s.Design.Axes
}

// LoadText writes a rate key for a sentence: "64 req/s" or "rate=64".
func LoadText(k string) string {
	if isNumber(k) {
		return k + " req/s"
	}
	return k
}

// FmtSeconds formats seconds as a rounded Go duration.
func FmtSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Second:
		d = d.Round(time.Millisecond)
	case d >= time.Millisecond:
		d = d.Round(10 * time.Microsecond)
	default:
		d = d.Round(time.Microsecond)
	}
	return d.String()
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// DroppedBehind is how many requests were not sent because the generator
// fell behind its schedule (Dropped less those dropped at max_workers).
func (sc *ScenarioResult) DroppedBehind() uint64 {
	if sc.DroppedAtMaxWorkers > sc.Dropped {
		return 0
	}
	return sc.Dropped - sc.DroppedAtMaxWorkers
}
