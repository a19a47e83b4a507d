package archive

import (
	"fmt"
	"strings"
)

// ParseLabel parses one key=value label. The key is letters, digits and
// . _ - / (as Prometheus and Kubernetes label keys); the value may be
// anything but empty or multi-line.
func ParseLabel(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return "", "", fmt.Errorf("label %q is not key=value", s)
	case k == "":
		return "", "", fmt.Errorf("label %q has no key before =", s)
	case v == "":
		return "", "", fmt.Errorf("label %q has no value after =", s)
	case strings.ContainsAny(v, "\n\r"):
		return "", "", fmt.Errorf("label %q: the value spans several lines", k)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == '/') {
			return "", "", fmt.Errorf("label key %q: only letters, digits and . _ - / are allowed", k)
		}
	}
	return k, v, nil
}
