package model

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// TestKneeJudgesLatency: 512 + 256 workers in front of a 5 s origin carry
// W / L = 153.6 req/s. Judged on success alone, a 60 s step "holds" up to
// about 170 req/s (the queue has not reached the 6 s checkout timeout
// yet, while p99 is 11 s); by default the knee also bounds p99 and lands
// just under the capacity, and says how it judged latency. A threshold on
// latency is used instead of the derived bound.
func TestKneeJudgesLatency(t *testing.T) {
	in := Input{Proxy: proxyConfig(t, poolYAML(512, 256, 6*time.Second, 5100*time.Millisecond, "serial")),
		Origin:    recipes(t, fixedRecipe("5s", 200)),
		Scenarios: []Scenario{scenario(t, "search", "GET http://proxy.model.invalid/search", "160/s", 60*time.Second, 30*time.Second)},
		Seed:      1}
	k, err := SearchKnee(in, "search", nil, KneeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k.Rate < 145 || k.Rate > 153.6 {
		t.Errorf("knee %.1f req/s, want just under the capacity 153.6", k.Rate)
	}
	if !strings.Contains(k.Latency, "p99 <= 5.5") || len(k.Thresholds) != 2 || !strings.Contains(k.Broken, "p99") {
		t.Errorf("latency judged %q, thresholds %q, broken %q", k.Latency, k.Thresholds, k.Broken)
	}
	old, err := SearchKnee(in, "search", nil, KneeOptions{SuccessOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if old.Rate < 160 || !strings.Contains(old.Latency, "not judged") {
		t.Errorf("success alone: knee %.1f req/s (%q), want the duration-bound answer above 160", old.Rate, old.Latency)
	}
	th, err := threshold.Parse("p99 < 8s")
	if err != nil {
		t.Fatal(err)
	}
	given, err := SearchKnee(in, "search", []threshold.Threshold{th}, KneeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(given.Latency, "threshold p99 < 8s") || given.Rate <= k.Rate || given.Rate >= old.Rate {
		t.Errorf("with p99 < 8s: knee %.1f (%q), want between %.1f and %.1f", given.Rate, given.Latency, k.Rate, old.Rate)
	}
}
