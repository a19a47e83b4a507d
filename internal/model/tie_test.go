package model

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestRaceTable: inside the measured points the share of answers in
// time falls as the latency passes the timeout; before them every answer
// wins, after them none does, as without a race.
func TestRaceTable(t *testing.T) {
	r := &DefaultRace
	last := 1.0
	for over := -6 * time.Millisecond; over <= 3*time.Millisecond; over += 100 * time.Microsecond {
		w, tied := r.win(over)
		if w > last || w < 0 || w > 1 {
			t.Fatalf("win(%v) = %v after %v", over, w, last)
		}
		inside := over >= r.Points[0].Over && over <= r.Points[len(r.Points)-1].Over
		if tied != inside {
			t.Errorf("win(%v): tied %v", over, tied)
		}
		last = w
	}
	for i := 1; i < len(r.Points); i++ {
		a, b := r.Points[i-1], r.Points[i]
		if w, _ := r.win((a.Over + b.Over) / 2); math.Abs(w-(a.Win+b.Win)/2) > 1e-9 {
			t.Errorf("halfway from %v to %v: %v, want the straight line", a.Over, b.Over, w)
		}
	}
	empty := &Race{}
	if w, tied := empty.win(0); w != 0 || tied {
		t.Errorf("no race: latency equal to the timeout is a timeout, got %v %v", w, tied)
	}
}

// TestTieAtTheRequestTimeout is the pool staircase described the obvious
// way: 512 + 256 workers, 6 s checkout timeout, an origin answering in
// 5 s and the proxy's default request timeout of 5 s, at 160 req/s. The
// model used to predict 0% (every answer exactly at the timeout lost);
// the real proxy answers about a third in time. The prediction must draw
// each side as the measured race and say it is fragile and why; a
// timeout 100 ms away from the latency is neither a tie nor fragile.
func TestTieAtTheRequestTimeout(t *testing.T) {
	in := func(rt string) Input {
		return Input{Proxy: proxyConfig(t, `pools:
  default: {size: 512, overflow: 256, checkout_timeout: 6s}
routes:
  - {name: search, path: /*, upstream: "http://origin.model.invalid", pool: default`+rt+`}
`), Origin: recipes(t, fixedRecipe("5s", 200)),
			Scenarios: []Scenario{scenario(t, "search", "GET http://proxy.model.invalid/search", "160/s", 20*time.Second, 30*time.Second)}, Seed: 1}
	}
	p, err := Predict(in(""))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Scenarios[0]
	want, _ := DefaultRace.win(0)
	t.Logf("success %.2f%%, fragile: %s", 100*s.Success, s.Fragile)
	if math.Abs(s.Success-want) > 0.03 {
		t.Errorf("success %.2f%%, want the race's %.0f%% within 3 points", 100*s.Success, 100*want)
	}
	if len(s.Ties) != 1 || s.Ties[0].Requests != s.Requests || s.Ties[0].Won != s.StatusCodes["200"] || !s.Ties[0].Modelled {
		t.Fatalf("ties %+v, want every one of %d requests at the request timeout", s.Ties, s.Requests)
	}
	for _, part := range []string{"100% of search's requests", "request timeout 5s of route search", "latency 5s", "timer", "a few milliseconds off"} {
		if !strings.Contains(s.Fragile, part) {
			t.Errorf("fragile %q lacks %q", s.Fragile, part)
		}
	}
	for _, rt := range []string{", request_timeout: 5100ms", ", request_timeout: 4900ms"} {
		p, err := Predict(in(rt))
		if err != nil {
			t.Fatal(err)
		}
		s := p.Scenarios[0]
		if len(s.Ties) != 0 || s.Fragile != "" || (s.Success != 1 && s.Success != 0) {
			t.Errorf("%s: success %v, ties %+v, fragile %q: want all or nothing, no tie", rt, s.Success, s.Ties, s.Fragile)
		}
	}
}

// TestTieAtTheCheckoutTimeout: one worker, a 1.5 s origin, a 500 ms
// checkout timeout, a request a second: each second request waits for the
// worker exactly as long as the checkout timeout allows, and times out
// about when the worker comes free with no one else waiting. The model
// decides that by its events' order, and says the prediction is fragile.
// A saturated staircase, whose waits reach the timeout all the time while
// others wait behind, is not.
func TestTieAtTheCheckoutTimeout(t *testing.T) {
	in := Input{Proxy: proxyConfig(t, poolYAML(1, 0, 500*time.Millisecond, 2*time.Second, "concurrent")), Origin: recipes(t, fixedRecipe("1500ms", 200)),
		Scenarios: []Scenario{scenario(t, "s", "GET http://proxy.model.invalid/x", "1/s", 20*time.Second, 30*time.Second)}, Seed: 1}
	p, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Scenarios[0]
	t.Logf("success %.2f%%, ties %+v", 100*s.Success, s.Ties)
	if len(s.Ties) != 1 || !strings.Contains(s.Ties[0].Bound, "checkout timeout 500ms of pool default") || s.Ties[0].Modelled || s.Ties[0].Requests < s.Requests/3 {
		t.Fatalf("ties %+v of %d requests", s.Ties, s.Requests)
	}
	if !strings.Contains(s.Fragile, "order of its events") {
		t.Errorf("fragile %q", s.Fragile)
	}
	stair := Input{Proxy: proxyConfig(t, poolYAML(512, 256, 6*time.Second, 5100*time.Millisecond, "serial")), Origin: recipes(t, fixedRecipe("5s", 200)),
		Scenarios: []Scenario{scenario(t, "s", "GET http://proxy.model.invalid/x", "300/s", 60*time.Second, 30*time.Second)}, Seed: 1}
	if p, err = Predict(stair); err != nil {
		t.Fatal(err)
	}
	if s := p.Scenarios[0]; s.Fragile != "" || s.Success > 0.6 {
		t.Errorf("staircase at 300/s: success %v, fragile %q (ties %+v)", s.Success, s.Fragile, s.Ties)
	}
}
