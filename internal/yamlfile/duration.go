package yamlfile

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ParseDuration reads a duration as YAML files write them: a Go duration
// ("250ms", "5s", "1m30s") or a bare 0, never negative.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s is not a duration (e.g. 250ms, 5s, 1m30s)", quote(s))
	}
	if v < 0 {
		return 0, fmt.Errorf("duration %s is negative", quote(s))
	}
	return v, nil
}

// Duration is a time.Duration written as ParseDuration reads it.
type Duration time.Duration

// UnmarshalYAML parses the duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return ErrorAt(n, "expected a duration like 250ms or 5s, found %s", KindName(n))
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return ErrorAt(n, "%v", err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
