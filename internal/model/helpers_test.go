package model

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// proxyConfig parses a proxy config for a test.
func proxyConfig(t testing.TB, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// recipes parses an origin recipe for a test.
func recipes(t testing.TB, json string) []recipe.Recipe {
	t.Helper()
	rs, err := recipe.Parse([]byte(json))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// scenario builds a constant-rate scenario to the proxy.
func scenario(t testing.TB, name, target, rate string, d, timeout time.Duration) Scenario {
	t.Helper()
	ts, err := targets.ReadAll(strings.NewReader(target), targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := schedule.ParseSpec(rate)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schedule.New(sp, d)
	if err != nil {
		t.Fatal(err)
	}
	to := make([]bool, len(ts))
	for i := range to {
		to[i] = true
	}
	return Scenario{Name: name, Schedule: s, Targets: ts, ToProxy: to, Timeout: timeout}
}

// poolYAML is a one-pool, one-route proxy config.
func poolYAML(size, overflow int, checkout, requestTimeout time.Duration, manager string) string {
	return fmt.Sprintf(`pools:
  default: {size: %d, overflow: %d, checkout_timeout: %s, manager: %s}
routes:
  - {name: all, path: /*, upstream: "http://origin.model.invalid", pool: default, request_timeout: %s}
`, size, overflow, checkout, manager, requestTimeout)
}

// fixedRecipe is an origin answering status after latency.
func fixedRecipe(latency string, status int) string {
	return fmt.Sprintf(`{"route": "/*", "stages": [{"at": 0, "status": %d, "latency": "%s"}]}`, status, latency)
}
