package httpcases

import (
	"regexp"
	"testing"
)

// Case names are how docs/http1.md names a difference: one name, one case.
func TestCaseNames(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	check := func(side, name string) {
		if !kebab.MatchString(name) {
			t.Errorf("%s case %q: not kebab-case", side, name)
		}
		if seen[side+name] {
			t.Errorf("%s case %q: twice", side, name)
		}
		seen[side+name] = true
	}
	for _, c := range Requests {
		check("request", c.Name)
	}
	for _, c := range Responses {
		check("response", c.Name)
		if c.Method != "GET" && c.Method != "HEAD" {
			t.Errorf("response case %q: method %q", c.Name, c.Method)
		}
	}
}

// Every part of docs/http1.md is there, and its rows name cases.
func TestDocumented(t *testing.T) {
	for _, p := range []Part{AttackResponses, LeanRequests, ProxyWriter, ProxyEndToEnd} {
		rows, err := Documented(p)
		if err != nil {
			t.Fatal(err)
		}
		for name := range rows {
			if !seen(name) {
				t.Errorf("%s: %s documents %q, which is no case", p, DocPath, name)
			}
		}
	}
}

func seen(name string) bool {
	for _, c := range Requests {
		if c.Name == name {
			return true
		}
	}
	for _, c := range Responses {
		if c.Name == name {
			return true
		}
	}
	return false
}
