package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestSetUpstream: -upstream moves every route of a one-upstream config,
// keeping each route's base path, and refuses a config with two upstreams
// and an upstream with a path.
func TestSetUpstream(t *testing.T) {
	one := `pools: {default: {size: 4}}
routes:
  - {path: /search*, upstream: "http://127.0.0.1:8080"}
  - {path: /v3/*, upstream: "http://127.0.0.1:8080/go"}
`
	cfg, err := Parse([]byte(one), "one.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Upstreams(); !reflect.DeepEqual(got, []string{"http://127.0.0.1:8080"}) {
		t.Fatalf("Upstreams = %q", got)
	}
	if err := cfg.SetUpstream("http://127.0.0.1:9090/"); err != nil {
		t.Fatal(err)
	}
	if a, b := cfg.Routes[0].Upstream, cfg.Routes[1].Upstream; a != "http://127.0.0.1:9090" || b != "http://127.0.0.1:9090/go" {
		t.Fatalf("routes now go to %q and %q", a, b)
	}
	two := strings.Replace(one, `"http://127.0.0.1:8080/go"`, `"http://127.0.0.2:8080/go"`, 1)
	cfg, err = Parse([]byte(two), "two.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.SetUpstream("http://127.0.0.1:9090"); err == nil || !strings.Contains(err.Error(), "go to 2 upstreams (http://127.0.0.1:8080, http://127.0.0.2:8080)") {
		t.Fatalf("two upstreams: %v", err)
	}
	for _, bad := range []string{"127.0.0.1:9090", "http://127.0.0.1:9090/base", "ftp://h", "http://h/?q=1"} {
		if err := cfg.SetUpstream(bad); err == nil || !strings.Contains(err.Error(), "no path") {
			t.Errorf("SetUpstream(%q) = %v", bad, err)
		}
	}
}
