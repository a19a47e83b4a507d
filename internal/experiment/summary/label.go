package summary

import (
	"strconv"
	"strings"
)

// RateAxis is the matrix variable that sets the first scenario's rate (or
// a closed loop's users), or "" when none does.
func (s *Summary) RateAxis() string {
	for _, ax := range s.Axes() {
		if ax.Component {
			continue
		}
		all := len(s.Steps) > 0
		for _, st := range s.Steps {
			v := st.Vars[ax.Key]
			if v == "" || len(st.Scenarios) == 0 || !setsLoad(st.Scenarios[0], v) {
				all = false
				break
			}
		}
		if all {
			return ax.Key
		}
	}
	return ""
}

// setsLoad reports whether a matrix value v sets the scenario's load: it
// is a part of its rate, or a closed loop's number of users.
func setsLoad(sc *ScenarioResult, v string) bool {
	if sc.Closed() {
		return v == strconv.Itoa(sc.Users)
	}
	return strings.Contains(sc.Rate, v)
}

// CellLabel names a step's matrix cell without its configuration, as a
// label rather than a sentence: "/v3/buildpacks at 512/s", "512/s",
// "32 users" or "/v3/info" ("" when the plan has no variables besides
// components).
func (s *Summary) CellLabel(st *StepResult) string {
	rate := s.RateAxis()
	label := s.VarsLabel(st)
	if rate != "" && len(st.Scenarios) > 0 {
		label = strings.TrimSpace(label + " at " + st.Scenarios[0].Load().String())
		label = strings.TrimPrefix(label, "at ")
	}
	return label
}

// varLabel names a variable's value by what it changes in the first
// scenario's target when it is a part of its path ("/v3/buildpacks"),
// else as "key value".
func (s *Summary) varLabel(key, value string) string {
	if len(s.Steps) > 0 && s.Design != nil && len(s.Design.Scenarios) > 0 {
		first := s.Steps[0].Vars[key]
		path := targetPath(s.Design.Scenarios[0].Target)
		if first != "" && segmentAt(path, first) >= 0 {
			return replaceSegment(path, first, value)
		}
	}
	return key + " " + value
}

// TargetTemplate is a scenario's target with the variables that change it
// from step to step named, and their values: "`GET ${api.url}/v3/${endpoint}`
// (endpoint: info, buildpacks)"; "" when every step sends the same target.
func (s *Summary) TargetTemplate(scenario string) string {
	if s.Design == nil || len(s.Steps) == 0 {
		return ""
	}
	var target string
	for _, sd := range s.Design.Scenarios {
		if sd.Name == scenario {
			target = sd.Target
		}
	}
	var named []string
	for _, ax := range s.Axes() {
		first := s.Steps[0].Vars[ax.Key]
		if ax.Component || first == "" || len(ax.Values) < 2 {
			continue
		}
		if segmentAt(target, first) < 0 {
			continue
		}
		target = replaceSegment(target, first, "${"+ax.Key+"}")
		named = append(named, ax.Key+": "+strings.Join(ax.Values, ", "))
	}
	if len(named) == 0 {
		return ""
	}
	return "`" + target + "` (" + strings.Join(named, "; ") + ")"
}

// targetPath is the path of a target line: "GET ${api.url}/v3/info?x=1"
// gives "/v3/info".
func targetPath(target string) string {
	f := strings.Fields(target)
	if len(f) < 2 {
		return ""
	}
	u := f[1]
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if strings.HasPrefix(u, "${") {
		if j := strings.Index(u, "}"); j >= 0 {
			u = u[j+1:]
		}
	}
	if i := strings.Index(u, "/"); i > 0 {
		u = u[i:]
	}
	u, _, _ = strings.Cut(u, "?")
	return u
}

// segmentAt is where value first stands as a whole segment of a path in
// s, after a / and before a /, ?, #, white space or the end: the index of
// its /, or -1.
func segmentAt(s, value string) int {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], "/"+value)
		if i < 0 {
			return -1
		}
		i += from
		end := i + 1 + len(value)
		if end == len(s) || strings.ContainsRune("/?# \t\n", rune(s[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}

// replaceSegment replaces every whole path segment value of s with repl.
func replaceSegment(s, value, repl string) string {
	var b strings.Builder
	for {
		i := segmentAt(s, value)
		if i < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i+1] + repl)
		s = s[i+1+len(value):]
	}
}

// GroupLabel names a step without its rate: its configuration and its
// other matrix variables ("ruby (2 workers), /v3/info"); the steps of a
// rate sweep that share it form one curve. A plan without a matrix names
// it by its configuration (the step's name).
func (s *Summary) GroupLabel(st *StepResult) string {
	var parts []string
	for _, p := range []string{s.ConfigLabel(st), s.VarsLabel(st)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return st.Configuration
	}
	return strings.Join(parts, ", ")
}

// ConfigLabel names a step's variants of the matrix's components, by
// their labels ("ruby (2 workers)"); "" when the matrix varies none.
// Unlike Configuration it leaves the other variables out.
func (s *Summary) ConfigLabel(st *StepResult) string {
	var parts []string
	for _, ax := range s.Axes() {
		if !ax.Component {
			continue
		}
		if l := st.Vars[ax.Key+".label"]; l != "" {
			parts = append(parts, l)
		} else if v := st.Variants[ax.Key]; v != "" {
			parts = append(parts, ax.Key+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// VarsLabel names a step's matrix variables other than its components and
// its rate ("/v3/info"; "" when there are none).
func (s *Summary) VarsLabel(st *StepResult) string {
	rate := s.RateAxis()
	var parts []string
	for _, ax := range s.Axes() {
		if v := st.Vars[ax.Key]; !ax.Component && ax.Key != rate && v != "" {
			parts = append(parts, s.varLabel(ax.Key, v))
		}
	}
	return strings.Join(parts, ", ")
}

// AtLoad places a sentence at a step's load: "at 64 req/s" (or "with 32
// users", a closed loop's) when the load is all that varies besides the
// configuration, else its cell ("on /v3/buildpacks at 512/s").
func (s *Summary) AtLoad(st *StepResult) string {
	if k := s.RateKey(st); k == "" || isNumber(k) {
		if t := s.KeyText(st); strings.HasSuffix(t, " users") || strings.HasSuffix(t, " user") {
			return "with " + t
		}
		return "at " + LoadText(k)
	}
	return "on " + s.CellLabel(st)
}

// KeyText writes a step's rate key (RateKey) for a sentence or a row:
// "64 req/s", a closed loop's "32 users", or the key as it is
// ("rate=64").
func (s *Summary) KeyText(st *StepResult) string {
	k := s.RateKey(st)
	if len(st.Scenarios) > 0 && st.Scenarios[0].Closed() && k == strconv.Itoa(st.Scenarios[0].Users) {
		return st.Scenarios[0].Load().String()
	}
	return LoadText(k)
}
