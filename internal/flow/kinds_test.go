package flow

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Every kind of capture and check against a real server: a regular
// expression over the body, a header, a cookie and the status feed the
// next request; header, JSON and latency checks pass and fail as the
// answers say.
func TestCaptureAndCheckKinds(t *testing.T) {
	s := newSite(t)
	f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
steps:
  - name: login
    request:
      method: POST
      url: URL/login
      body: '{"user":"zoe","password":"secret"}'
    capture:
      - {var: tok, regex: '"token":"([^"]+)"'}
      - {var: ctype, header: content-type}
      - {var: sid, cookie: sid}
      - {var: code, status: true}
    check:
      - {header: Content-Type, contains: json}
      - {json: "$.items[2].id", equals: 3}
      - {json: "$.nothing", exists: false}
      - {json: "$.ok", equals: false}
      - {latency_below: 1h}
      - {header: Content-Type, contains: xml}
    on_failure: continue
  - name: echo
    request: {url: "URL/item?id={{code}}&c={{sid}}&t={{tok}}", headers: {X-Type: "{{ctype}}"}}
`})
	r := runFlow(t, f, "10/s", 100*time.Millisecond, 10, nil)
	if len(r.res) != 2 {
		t.Fatalf("%d results, want 2", len(r.res))
	}
	login := r.res[0]
	if login.FlowStep.Name != "login" {
		login = r.res[1]
	}
	// checks 3 ($.ok equals false) and 5 (contains xml) fail
	if login.Failed != 1<<3|1<<5 {
		t.Fatalf("failed checks %06b, want 101000", login.Failed)
	}
	got := s.received()
	if len(got) != 2 {
		t.Fatalf("the site got %d requests", len(got))
	}
	echo := got[1]
	if echo.Query != "id=200&c=s-zoe&t=tok-zoe" || echo.Header.Get("X-Type") != "application/json" || echo.Header.Get("Cookie") != "sid=s-zoe" {
		t.Fatalf("the second request: query %q, X-Type %q, Cookie %q", echo.Query, echo.Header.Get("X-Type"), echo.Header.Get("Cookie"))
	}
	if out := outcomes(r.res); out[results.Completed] != 1 {
		t.Fatalf("outcomes %v", out)
	}
}

// With cookies: false no Cookie header is sent, and a cookie capture
// still reads the answer's Set-Cookie.
func TestCookiesOff(t *testing.T) {
	s := newSite(t)
	f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
cookies: false
steps:
  - request: {method: POST, url: URL/login, body: '{"user":"ida","password":"secret"}'}
    capture: [{var: sid, cookie: sid}]
  - request: {url: "URL/item?c={{sid}}"}
`})
	r := runFlow(t, f, "10/s", 100*time.Millisecond, 10, nil)
	if out := outcomes(r.res); out[results.Completed] != 1 {
		t.Fatalf("outcomes %v", out)
	}
	got := s.received()
	if len(got) != 2 || got[1].Query != "c=s-ida" || got[1].Header.Get("Cookie") != "" {
		t.Fatalf("the site got %+v", got)
	}
}

// Think times stay in their bounds: uniform within [min, max], the
// exponential cut at ten means.
func TestThinkTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	u := Think{Kind: "uniform", Min: time.Second, Max: 3 * time.Second}
	e := Think{Kind: "exponential", Mean: time.Second}
	var sum time.Duration
	for range 10_000 {
		if d := u.draw(rng); d < time.Second || d > 3*time.Second {
			t.Fatalf("uniform drew %v", d)
		}
		d := e.draw(rng)
		if d < 0 || d > 10*time.Second {
			t.Fatalf("exponential drew %v", d)
		}
		sum += d
	}
	if mean := sum / 10_000; mean < 900*time.Millisecond || mean > 1100*time.Millisecond {
		t.Fatalf("exponential mean %v, want about 1s", mean)
	}
	if d := (Think{Kind: "fixed", Min: time.Second, Max: time.Second}).draw(rng); d != time.Second {
		t.Fatalf("fixed drew %v", d)
	}
}
