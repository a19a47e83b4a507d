package model

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// TestKneeJudgesLatency: 48 + 16 workers in front of a 1 s origin carry
// W / L = 64 req/s (the pool staircase at a quarter of its size, so the
// searches stay quick). Judged on success alone, a 20 s step "holds" above
// that (the queue has not reached the 2 s checkout timeout yet, while p99
// climbs); by default the knee also bounds p99 and lands just under the
// capacity, and says how it judged latency. A threshold on latency is
// used instead of the derived bound.
func TestKneeJudgesLatency(t *testing.T) {
	in := Input{Proxy: proxyConfig(t, poolYAML(48, 16, 2*time.Second, 1100*time.Millisecond, "serial")),
		Origin:    recipes(t, fixedRecipe("1s", 200)),
		Scenarios: []Scenario{scenario(t, "search", "GET http://proxy.model.invalid/search", "40/s", 20*time.Second, 30*time.Second)},
		Seed:      1}
	k, err := SearchKnee(in, "search", nil, KneeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k.Rate < 60 || k.Rate > 64 {
		t.Errorf("knee %.1f req/s, want just under the capacity 64", k.Rate)
	}
	if !strings.Contains(k.Latency, "p99 <= 1.1") || len(k.Thresholds) != 2 || !strings.Contains(k.Broken, "p99") {
		t.Errorf("latency judged %q, thresholds %q, broken %q", k.Latency, k.Thresholds, k.Broken)
	}
	old, err := SearchKnee(in, "search", nil, KneeOptions{SuccessOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if old.Rate < 67 || !strings.Contains(old.Latency, "not judged") {
		t.Errorf("success alone: knee %.1f req/s (%q), want the duration-bound answer above the capacity 64", old.Rate, old.Latency)
	}
	th, err := threshold.Parse("p99 < 1.5s")
	if err != nil {
		t.Fatal(err)
	}
	given, err := SearchKnee(in, "search", []threshold.Threshold{th}, KneeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(given.Latency, "threshold p99 < 1.5s") || given.Rate <= k.Rate || given.Rate >= old.Rate {
		t.Errorf("with p99 < 1.5s: knee %.1f (%q), want between %.1f and %.1f", given.Rate, given.Latency, k.Rate, old.Rate)
	}
}
