package routepath

import "testing"

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/news", "/news", true},
		{"/news", "/news/1", false},
		{"/news", "/new", false},
		{"/search*", "/search", true},
		{"/search*", "/search?q=1", true},
		{"/search*", "/searc", false},
		{"/*", "/", true},
		{"/*", "/anything/at/all", true},
	} {
		if got := Match(c.pattern, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
	if !InnerStar("/a*b") || !InnerStar("/a**") || InnerStar("/a*") || InnerStar("/a") {
		t.Error("InnerStar")
	}
}
