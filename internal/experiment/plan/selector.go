package plan

import (
	"fmt"
	"regexp"
	"strings"
)

// Selector picks Prometheus series by name (or name prefix ending in *) and
// optional exact label values: pool_in_use{pool="default"}.
type Selector struct {
	Name   string
	Prefix bool
	Labels map[string]string
}

var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*\*?$`)
	labelRE      = regexp.MustCompile(`^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"([^"]*)"\s*$`)
)

// ParseSelector reads a series selector.
func ParseSelector(s string) (Selector, error) {
	sel := Selector{}
	name, rest, hasLabels := strings.Cut(strings.TrimSpace(s), "{")
	name = strings.TrimSpace(name)
	if !metricNameRE.MatchString(name) {
		return sel, fmt.Errorf("bad series %q (want a metric name, name_prefix*, or name{label=\"value\"})", s)
	}
	sel.Name, sel.Prefix = strings.TrimSuffix(name, "*"), strings.HasSuffix(name, "*")
	if hasLabels {
		body, ok := strings.CutSuffix(strings.TrimSpace(rest), "}")
		if !ok {
			return sel, fmt.Errorf("bad series %q: missing }", s)
		}
		sel.Labels = map[string]string{}
		if strings.TrimSpace(body) != "" {
			for _, part := range strings.Split(body, ",") {
				m := labelRE.FindStringSubmatch(part)
				if m == nil {
					return sel, fmt.Errorf("bad series %q: label %q (want label=\"value\")", s, strings.TrimSpace(part))
				}
				sel.Labels[m[1]] = m[2]
			}
		}
	}
	return sel, nil
}

// Matches reports whether a series with this name and labels is selected.
func (s Selector) Matches(name string, labels map[string]string) bool {
	if s.Prefix {
		if !strings.HasPrefix(name, s.Name) {
			return false
		}
	} else if name != s.Name {
		return false
	}
	for k, v := range s.Labels {
		if labels[k] != v {
			return false
		}
	}
	return true
}
