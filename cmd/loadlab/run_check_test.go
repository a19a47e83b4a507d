package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunCheckForeignUpstream: -check passes a plan whose proxy config
// sends a route to a hard-coded address, with one warning line naming the
// route, that address and the plan's origin; a plan whose routes all go to
// ${origin.url} gets no warning.
func TestRunCheckForeignUpstream(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("origin.json", `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "5s"}]}`)
	write("proxy.yaml", "pools:\n  default: {size: 512, overflow: 256, checkout_timeout: 6s}\nroutes:\n  - {name: search, path: /*, upstream: \"http://127.0.0.1:8080\"}\n")
	write("good.yaml", "pools:\n  default: {size: 4}\nroutes:\n  - {name: search, path: /*, upstream: \"${origin.url}\"}\n")
	plan := func(config string) string {
		return "components:\n  origin: {kind: origin, recipe: origin.json}\n  proxy: {kind: proxy, config: " + config +
			"}\nscenarios:\n  - {target: \"GET ${proxy.url}/search\", rate: 160/s, duration: 20s}\n"
	}
	write("plan.yaml", plan("proxy.yaml"))
	write("good-plan.yaml", plan("good.yaml"))
	code, stdout, stderr := runCLI(t, nil, "run", "-check", filepath.Join(dir, "plan.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var warnings []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "warning: ") {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("want one warning line, got %q", stdout)
	}
	for _, part := range []string{"proxy.yaml", "route search", "http://127.0.0.1:8080", "origin (component origin, ${origin.url})"} {
		if !strings.Contains(warnings[0], part) {
			t.Errorf("%q lacks %q", warnings[0], part)
		}
	}
	if code, stdout, _ := runCLI(t, nil, "run", "-check", filepath.Join(dir, "good-plan.yaml")); code != 0 || strings.Contains(stdout, "warning") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
}
