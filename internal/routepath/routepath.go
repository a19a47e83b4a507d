// Package routepath is the path-pattern language shared by the proxy's
// routes and the origin's recipe routes: "/news" matches that path only,
// "/search*" every path starting with "/search", "/*" every path.
package routepath

import "strings"

// Prefix returns the prefix a pattern matches and whether it is a prefix
// pattern (one ending in "*").
func Prefix(pattern string) (prefix string, isPrefix bool) {
	return strings.CutSuffix(pattern, "*")
}

// Match reports whether path matches pattern.
func Match(pattern, path string) bool {
	if p, ok := Prefix(pattern); ok {
		return strings.HasPrefix(path, p)
	}
	return path == pattern
}

// InnerStar reports whether a "*" appears anywhere but at the end of
// pattern, which the language does not support.
func InnerStar(pattern string) bool {
	p, _ := Prefix(pattern)
	return strings.Contains(p, "*")
}
