package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignUpstreams: a route hard-coded to an address, or sent there
// by an environment default, is named with both addresses; routes to the
// origin or to another component of the plan are not; a variant whose
// override points the route back at the origin clears it.
func TestForeignUpstreams(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("origin.json", `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "10ms"}]}`)
	write("proxy.yaml", `pools:
  default: {size: 4, checkout_timeout: 1s}
routes:
  - {name: search, path: /search*, upstream: "http://127.0.0.1:8080", pool: default}
  - {name: news, path: /news*, upstream: "${ORIGIN_URL:-http://127.0.0.1:8081}", pool: default}
  - {name: api, path: /api*, upstream: "${api.url}/v3", pool: default}
  - {name: rest, path: /*, upstream: "${origin.url}", pool: default}
`)
	write("plan.yaml", `components:
  origin: {kind: origin, recipe: origin.json}
  api: {kind: command, command: [sleep, "60"]}
  proxy:
    kind: proxy
    variants:
      small: {config: proxy.yaml}
      big: {config: proxy.yaml, set: {pools.default.size: 8}}
matrix:
  proxy: [small, big]
scenarios:
  - {target: "GET ${proxy.url}/search", rate: 1/s, duration: 1s}
`)
	t.Setenv("ORIGIN_URL", "")
	os.Unsetenv("ORIGIN_URL") // the default in the config applies
	p, err := Load(filepath.Join(dir, "plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := p.ForeignUpstreams()
	if len(got) != 2 {
		t.Fatalf("want search and news, got %d: %v", len(got), got)
	}
	for i, want := range []struct{ route, upstream string }{{"search", "http://127.0.0.1:8080"}, {"news", "http://127.0.0.1:8081"}} {
		f := got[i]
		if f.Route != want.route || f.Upstream != want.upstream || f.Origin != "origin" || f.Component != "proxy" {
			t.Errorf("%d: %+v, want route %s to %s", i, f, want.route, want.upstream)
		}
		line := f.String()
		for _, part := range []string{"proxy.yaml", "route " + want.route, want.upstream, "${origin.url}"} {
			if !strings.Contains(line, part) {
				t.Errorf("%q lacks %q", line, part)
			}
		}
	}
}
