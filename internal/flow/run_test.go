package flow

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/testwait"
)

const journey = `
name: shop
data: users.csv
steps:
  - name: login
    request:
      method: POST
      url: URL/login
      headers: {Content-Type: application/json}
      body: '{"user":"{{user}}","password":"{{password}}"}'
    capture:
      - {var: token, json: "$.token"}
      - {var: ids, json: "$.items[*].id"}
    check:
      - {status: 200}
      - {json: "$.ok", equals: true}
  - think: 1ms
  - group: browse
    steps:
      - name: home
        request: {url: "URL/home", headers: {Authorization: "Bearer {{token}}"}}
        check:
          - {body_contains: welcome}
      - loop: {over: ids, as: id}
        steps:
          - name: item
            request: {url: "URL/item?id={{id}}&n={{loop.index}}", headers: {Authorization: "Bearer {{token}}"}}
            check:
              - {status: 200}
`

// Captures feed later requests: the token from the login's JSON goes in
// the Authorization header, the session cookie in Cookie, and the list of
// ids drives a loop; the site answers 401 to any request without them.
func TestCapturesFeedLaterRequests(t *testing.T) {
	s := newSite(t)
	f := writeFlow(t, s.URL, map[string]string{"flow.yaml": journey, "users.csv": "user,password\nalice,secret\nbob,secret\n"})
	r := runFlow(t, f, "20/s", 500*time.Millisecond, 100, nil)
	if got := outcomes(r.res); got[results.Completed] != 10 || len(got) != 1 {
		t.Fatalf("outcomes %v, want 10 completed", got)
	}
	if len(r.res) != 10*5 {
		t.Fatalf("%d results, want 50 (login, home, 3 items a session)", len(r.res))
	}
	steps := map[string]int{}
	for _, res := range r.res {
		steps[res.FlowStep.Name]++
		if res.Code != 200 || res.Failed != 0 {
			t.Errorf("session %d step %s: code %d failed checks %b", res.Session, res.FlowStep.Name, res.Code, res.Failed)
		}
	}
	if steps["login"] != 10 || steps["browse/home"] != 10 || steps["browse/item"] != 30 {
		t.Errorf("steps %v", steps)
	}
	items := map[string]int{}
	for _, g := range s.received() {
		if g.Path == "/item" {
			items[g.Query]++
			if a := g.Header.Get("Authorization"); a != "Bearer tok-alice" && a != "Bearer tok-bob" {
				t.Errorf("item request with Authorization %q", a)
			}
		}
	}
	for i, id := range []string{"1", "2", "3"} {
		q := "id=" + id + "&n=" + string(rune('0'+i))
		if items[q] != 10 {
			t.Errorf("the site got %q %d times, want 10 (items %v)", q, items[q], items)
		}
	}
}

// A failed check stops the session (and is counted); with on_failure:
// continue the session goes on and the failure is still counted.
func TestFailedCheckStopsSession(t *testing.T) {
	for _, onFailure := range []string{"stop", "continue"} {
		t.Run(onFailure, func(t *testing.T) {
			s := newSite(t)
			flow := strings.Replace(journey, "steps:\n", "on_failure: "+onFailure+"\nsteps:\n", 1)
			f := writeFlow(t, s.URL, map[string]string{"flow.yaml": flow, "users.csv": "user,password\nalice,secret\nmallory,wrong\n"})
			r := runFlow(t, f, "20/s", 200*time.Millisecond, 100, nil)
			got := outcomes(r.res)
			failedLogin := 0
			for _, res := range r.res {
				if res.FlowStep.Name == "login" && res.Failed != 0 {
					failedLogin++
					if res.Failed != 0b11 {
						t.Errorf("a wrong password's login failed checks %b, want both (status, json $.ok)", res.Failed)
					}
				}
			}
			if failedLogin != 2 {
				t.Fatalf("%d logins with failed checks, want 2", failedLogin)
			}
			mallory := 0
			for _, g := range s.received() {
				if g.Path == "/home" && strings.TrimSpace(g.Header.Get("Authorization")) == "Bearer" {
					mallory++
				}
			}
			if onFailure == "stop" {
				if got["failed: check login: status 200"] != 2 || got[results.Completed] != 2 {
					t.Fatalf("outcomes %v, want 2 completed and 2 stopped by the status check", got)
				}
				if mallory != 0 {
					t.Fatalf("a stopped session still sent %d requests to /home", mallory)
				}
				return
			}
			// continue: mallory's sessions go on; the capture of the
			// token fails too (no token in a 403) and is not fatal.
			if got[results.Completed] != 4 {
				t.Fatalf("outcomes %v, want 4 completed", got)
			}
			if mallory != 2 {
				t.Fatalf("with on_failure: continue, /home got %d requests without a token, want 2", mallory)
			}
		})
	}
}

// A slow server cannot slow the open model down: sessions arrive on the
// schedule whatever the answers do, those due while the bound on sessions
// in flight is reached are recorded as dropped at their due time (never
// delayed), and the latency of the requests in flight counts from their
// due time.
func TestSlowServerDropsSessionsNotDelays(t *testing.T) {
	s := newSite(t)
	f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
steps:
  - name: slow
    request: {url: "URL/slow"}
  - name: after
    request: {url: "URL/home"}
`})
	const hold = 300 * time.Millisecond
	r := runFlow(t, f, "40/s", 500*time.Millisecond, 2, func(a *attack.Attacker) {
		// the gate opens once every session but the two in flight was dropped
		testwait.Eventually(t, 30*time.Second, "18 sessions dropped", func() bool { return a.Stats().Dropped == 18 })
		time.Sleep(hold)
		close(s.gate)
	})
	got := outcomes(r.res)
	if got[results.Dropped] != 18 {
		t.Fatalf("outcomes %v, want 18 dropped", got)
	}
	interval := 25 * time.Millisecond
	seen := map[uint64]bool{}
	for _, res := range r.res {
		if res.FlowStep == nil {
			t.Fatalf("a result without its flow step: %+v", res)
		}
		if res.FlowStep.Name != "slow" {
			continue
		}
		// every session's first request (or drop) is due on the schedule
		if want := r.start.Add(time.Duration(res.Session) * interval); !res.Due.Equal(want) {
			t.Errorf("session %d due %v after start, want %v", res.Session, res.Due.Sub(r.start), want.Sub(r.start))
		}
		seen[res.Session] = true
		if res.Ended.Outcome == results.Dropped {
			if res.Error != "dropped: max-sessions reached" || res.Code != 0 {
				t.Errorf("dropped session %d: error %q code %d", res.Session, res.Error, res.Code)
			}
			continue
		}
		if res.DueLatency() < hold {
			t.Errorf("session %d waited %v for /slow, measured from its due time; the gate held it at least %v", res.Session, res.DueLatency(), hold)
		}
	}
	if len(seen) != 20 {
		t.Fatalf("%d sessions recorded, want the schedule's 20", len(seen))
	}
	// each next request is due when the answer before it came
	ends := map[uint64]time.Time{}
	for _, res := range r.res {
		if res.FlowStep.Name == "slow" && res.Code != 0 {
			ends[res.Session] = res.End()
		}
	}
	after := 0
	for _, res := range r.res {
		if res.FlowStep.Name == "after" {
			after++
			if end, ok := ends[res.Session]; !ok || !res.Due.Equal(end) {
				t.Errorf("session %d: the second request was due %v, the first answer came %v", res.Session, res.Due, end)
			}
		}
	}
	if after != 2 {
		t.Errorf("%d second requests, want the 2 sessions that started", after)
	}
}

// pick: unique gives each row to one session; when they run out the
// attack stops (and says so); exhausted: wrap starts over instead.
func TestUniquePickStopsWhenRowsRunOut(t *testing.T) {
	for _, exhausted := range []string{"stop", "wrap"} {
		t.Run(exhausted, func(t *testing.T) {
			s := newSite(t)
			f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
data: users.csv
pick: unique
exhausted: ` + exhausted + `
steps:
  - request: {url: "URL/item?u={{user}}"}
`, "users.csv": "user\nann\nben\ncid\n"})
			r := runFlow(t, f, "50/s", 400*time.Millisecond, 100, nil)
			users := map[string]int{}
			for _, g := range s.received() {
				users[g.Query]++
			}
			ranOut, rows := r.runner.RanOut()
			if exhausted == "wrap" {
				if len(r.res) != 20 || ranOut {
					t.Fatalf("wrap: %d sessions (ran out %v), want the schedule's 20", len(r.res), ranOut)
				}
				return
			}
			if !ranOut || rows != 3 {
				t.Fatalf("ran out %v of %d rows, want true of 3", ranOut, rows)
			}
			got := outcomes(r.res)
			if got[results.Completed] != 3 || users["u=ann"] != 1 || users["u=ben"] != 1 || users["u=cid"] != 1 {
				t.Fatalf("outcomes %v, users %v: want each of the 3 rows once", got, users)
			}
			// the sessions that found no row are recorded as dropped, saying why
			for _, res := range r.res {
				if res.Code == 0 && (res.Error != ErrRowsRanOut || res.Ended.Outcome != results.Dropped) {
					t.Errorf("a session without a row: %q %q", res.Error, res.Ended.Outcome)
				}
			}
			if len(r.res) > 20 || got[results.Dropped] == 0 {
				t.Errorf("%d results, outcomes %v: want the sessions without a row dropped", len(r.res), got)
			}
		})
	}
}

// A captured value holding CR LF never reaches the wire: its capture
// fails (counted, the session stops) and the request it would go into is
// never sent, so the server never sees an injected header.
func TestCapturedCRLFNeverReachesTheWire(t *testing.T) {
	for _, client := range []string{"lean", "std"} {
		t.Run(client, func(t *testing.T) {
			s := newSite(t)
			f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
steps:
  - name: evil
    request: {url: "URL/evil"}
    capture:
      - {var: token, json: "$.token"}
  - name: home
    request: {url: "URL/home", headers: {Authorization: "Bearer {{token}}"}}
`})
			r := runFlowWith(t, f, "20/s", 200*time.Millisecond, 100, nil, func(o *attack.Options) { o.Client = client })
			if got := outcomes(r.res); got["failed: capture evil: token"] != 4 {
				t.Fatalf("outcomes %v, want 4 sessions stopped by the token's capture", got)
			}
			for _, g := range s.received() {
				if g.Header.Get("X-Injected") != "" || g.Path == "/home" {
					t.Fatalf("the site received %s %s with headers %v", g.Method, g.Path, g.Header)
				}
			}
		})
	}
}

// The closed model: N users each run the flow again as soon as it ends;
// never more than N sessions in flight.
func TestClosedModelUsers(t *testing.T) {
	s := newSite(t)
	f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
steps:
  - request: {url: "URL/item?id=1"}
    check: [{status: 401}]
  - think: {uniform: [1ms, 3ms]}
  - request: {url: "URL/item?id=2"}
`})
	r := runFlow(t, f, "0", 300*time.Millisecond, 2, nil)
	got := outcomes(r.res)
	if got[results.Completed] < 4 || len(got) != 1 {
		t.Fatalf("outcomes %v, want several completed sessions", got)
	}
	s.mu.Lock()
	maxIn := s.maxIn
	s.mu.Unlock()
	if maxIn > 2 {
		t.Fatalf("%d requests in flight at once, want at most the 2 users", maxIn)
	}
	sessions := map[uint64]int{}
	for _, res := range r.res {
		sessions[res.Session]++
	}
	for ses, n := range sessions {
		if n != 2 {
			t.Errorf("session %d has %d results, want 2", ses, n)
		}
	}
}
