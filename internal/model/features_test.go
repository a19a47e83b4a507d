package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

// The cache serves fresh copies, and stale ones as fallbacks once the
// origin fails, as the proxy does.
func TestCacheAndFallback(t *testing.T) {
	cfg := proxyConfig(t, `pools:
  default: {size: 10, checkout_timeout: 1s}
routes:
  - {name: news, path: /news, upstream: "http://origin.model.invalid", pool: default, cache: true, fallback: true}
`)
	rec := recipes(t, `{"route": "/news", "headers": {"cache-control": "public, max-age=1"},
	  "stages": [{"at": 0, "status": 200, "latency": "50ms"}, {"at": "5s", "status": 500, "latency": "50ms"}]}`)
	in := Input{Proxy: cfg, Origin: rec, Seed: 1,
		Scenarios: []Scenario{scenario(t, "news", "GET http://proxy.model.invalid/news", "20/s", 10*time.Second, 5*time.Second)}}
	p, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Scenarios[0]
	if s.Success != 1 {
		t.Errorf("success %v: stale copies should cover the failing origin", s.Success)
	}
	for _, by := range []string{byCache, byUpstream, byFallback} {
		if s.Answered[by] == 0 {
			t.Errorf("no answer by %s: %v", by, s.Answered)
		}
	}
	// Fresh for 1 s: one refresh a second (two when a second request comes
	// while the first is in flight: the proxy does not coalesce them).
	if n := s.Answered[byUpstream]; n < 4 || n > 12 {
		t.Errorf("%d upstream answers in the 5 healthy seconds, want about one a second", n)
	}
}

// An upstream URL with a path sends requests to that path at the origin,
// as the proxy does: two routes to one origin, under /ruby and /go, answer
// from the origin's routes under each.
func TestUpstreamBasePath(t *testing.T) {
	cfg := proxyConfig(t, `pools:
  default: {size: 10, checkout_timeout: 1s}
routes:
  - {name: ruby, path: /ruby-api/*, upstream: "http://origin.model.invalid/ruby/", pool: default}
  - {name: go, path: /*, upstream: "http://origin.model.invalid/go", pool: default}
`)
	rec := recipes(t, `[{"route": "/ruby/ruby-api/info", "stages": [{"at": 0, "status": 200, "latency": "50ms"}]},
	  {"route": "/go/info", "stages": [{"at": 0, "status": 201, "latency": "5ms"}]}]`)
	in := Input{Proxy: cfg, Origin: rec, Seed: 1, Scenarios: []Scenario{
		scenario(t, "ruby", "GET http://proxy.model.invalid/ruby-api/info", "10/s", 2*time.Second, 5*time.Second),
		scenario(t, "go", "GET http://proxy.model.invalid/info", "10/s", 2*time.Second, 5*time.Second)}}
	p, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	ruby, gp := p.Scenarios[0], p.Scenarios[1]
	if ruby.StatusCodes["200"] != ruby.Requests || ruby.Latencies.P50 < 50*time.Millisecond || ruby.Latencies.P50 > 52*time.Millisecond {
		t.Errorf("ruby: codes %v, p50 %v; want every answer 200 after 50 ms (origin route /ruby/ruby-api/info)", ruby.StatusCodes, ruby.Latencies.P50)
	}
	if gp.StatusCodes["201"] != gp.Requests || gp.Latencies.P50 > 7*time.Millisecond {
		t.Errorf("go: codes %v, p50 %v; want every answer 201 after 5 ms (origin route /go/info)", gp.StatusCodes, gp.Latencies.P50)
	}
}

// What the model cannot represent is named, and the rest is modelled.
func TestStepInputNamesWhatItLeavesOut(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("origin.json", fixedRecipe("100ms", 200))
	write("proxy.yaml", poolYAML(4, 0, time.Second, 2*time.Second, "serial"))
	write("plan.yaml", `name: mixed
components:
  origin: {kind: origin, recipe: origin.json}
  proxy: {kind: proxy, config: proxy.yaml}
  app: {kind: command, command: [sleep, "60"], listen_pattern: "listening on (\\S+)"}
scenarios:
  - {name: via-proxy, target: "GET ${proxy.url}/x", rate: 10/s, duration: 5s}
  - {name: direct, target: "GET ${origin.url}/x", rate: 5/s, duration: 5s}
  - {name: app, target: "GET ${app.url}/x", rate: 5/s, duration: 5s}
`)
	p, err := plan.Load(filepath.Join(dir, "plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sp := PredictStep(p, p.Steps[0], 1)
	if sp.Err != nil {
		t.Fatal(sp.Err)
	}
	notes := strings.Join(sp.Notes, "\n")
	for _, want := range []string{"component app is a command", "scenario app goes to app.model.invalid"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %v", want, sp.Notes)
		}
	}
	if len(sp.Prediction.Scenarios) != 2 {
		t.Fatalf("%d scenarios modelled, want via-proxy and direct", len(sp.Prediction.Scenarios))
	}
	if d := sp.Prediction.Scenario("direct"); d == nil || d.Answered[byOrigin] != d.Requests {
		t.Errorf("the direct scenario did not go straight to the origin: %+v", d)
	}
}

// A plan that keeps the proxy running between steps (restart: change):
// the flood step starts with the cache the warm-up step filled, as in the
// proxy, so its stale fallbacks cover most failures.
func TestStateCarriesAcrossKeptSteps(t *testing.T) {
	p, err := plan.Load("../../examples/002-pool-drain-breaker/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kept := PredictStep(p, p.Steps[1], 1)
	if kept.Err != nil {
		t.Fatal(kept.Err)
	}
	fresh := *p.Steps[1]
	fresh.Index = 0 // as if it were the first step: nothing carried over
	cold := PredictStep(p, &fresh, 1)
	k, c := kept.Prediction.Scenarios[0], cold.Prediction.Scenarios[0]
	if k.Success < 0.9 || k.Success <= c.Success+0.05 {
		t.Errorf("flood after the warm-up: success %.2f%%, from cold %.2f%%: the warm cache did not carry over", 100*k.Success, 100*c.Success)
	}
	if k.Requests != 800 || len(kept.Notes) != 0 {
		t.Errorf("requests %d (want the step's 800 only), notes %v", k.Requests, kept.Notes)
	}
}
