package live

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
	"github.com/loadlab/loadlab/internal/webguard"
)

// event is one server-sent event as a browser sees it.
type event struct {
	Type, ID, Data string
}

// stream is an open event stream read in the background.
type stream struct {
	resp   *http.Response
	events chan event
}

// openStream connects to the view's event stream (resuming after lastID
// when not empty) and fails the test unless it is an event stream.
func openStream(t *testing.T, s *Server, lastID string) *stream {
	t.Helper()
	resp := get(t, s.URL(), "events", lastID)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		t.Fatalf("events: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	st := &stream{resp: resp, events: make(chan event, 4096)}
	go func() {
		defer close(st.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Data != "" {
					st.events <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.Type = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				ev.Data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

// get requests path of the view whose URL is base (keeping its token).
func get(t *testing.T, base, path, lastID string) *http.Response {
	t.Helper()
	u := strings.Replace(base, "/?", "/"+path+"?", 1)
	if !strings.Contains(u, "?") {
		u += path
	}
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// next returns the stream's next event, failing after 20 s.
func (st *stream) next(t *testing.T) event {
	t.Helper()
	select {
	case ev, ok := <-st.events:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no event within 20 s")
	}
	return event{}
}

// point returns the next point, skipping other events.
func (st *stream) point(t *testing.T) Point {
	t.Helper()
	for {
		ev := st.next(t)
		if ev.Type != "" {
			continue
		}
		var p Point
		if err := json.Unmarshal([]byte(ev.Data), &p); err != nil {
			t.Fatal(err)
		}
		if ev.ID == "" || ev.ID != jsonID(p) {
			t.Fatalf("event id %q for point %d", ev.ID, p.ID)
		}
		return p
	}
}

func jsonID(p Point) string { b, _ := json.Marshal(p.ID); return string(b) }

// newTestServer is a view on a free loopback port whose points are
// published when the test says (tick), not every second.
func newTestServer(t *testing.T, o Options) (*Server, func()) {
	t.Helper()
	ticks := make(chan time.Time)
	s, err := listen("127.0.0.1:0", o, ticks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(0) })
	tick := func() {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		ticks <- time.Now()
		<-changed // the point is published
	}
	return s, tick
}

func ok200(seq uint64, due time.Time, lat time.Duration) *results.Result {
	return &results.Result{Seq: seq, Due: due, Sent: due.Add(time.Millisecond), Latency: lat, Code: 200}
}

func TestHistoryOnConnectThenLivePoints(t *testing.T) {
	var sent atomic.Uint64
	s, tick := newTestServer(t, Options{Stats: func() attack.Stats { return attack.Stats{Sent: sent.Load(), InFlight: 3} }})
	due := time.Now()
	for i := range 20 {
		s.Add(ok200(uint64(i), due, 5*time.Millisecond))
	}
	s.Add(&results.Result{Seq: 20, Due: due, Sent: due, Latency: time.Millisecond, Error: "connection refused"})
	s.Add(&results.Result{Seq: 21, Due: due, Error: results.DroppedPrefix + "max-workers reached"})
	sent.Store(24) // three sent and not answered yet
	s.SetStep(Step{Name: "40 rps", Index: 1, Of: 3, Rate: "40/s"})
	s.SetMetric("proxy cpu%", "CPU %", 12)
	tick()
	sent.Store(30)
	tick()

	// A new browser gets the units of the metrics, then the history.
	st := openStream(t, s, "")
	if ev := st.next(t); ev.Type != "units" || ev.Data != `{"proxy cpu%":"CPU %"}` {
		t.Fatalf("first event: %+v", ev)
	}
	p0, p1 := st.point(t), st.point(t)
	if p0.ID != 0 || p0.Sent != 24 || p0.Answered != 20 || p0.OK != 20 || p0.Codes["0"] != 1 || p0.Codes["dropped"] != 1 || p0.InFlight != 3 {
		t.Errorf("first point: %+v", p0)
	}
	if p0.P50 < 5 || p0.P50 > 7 || p0.Step == nil || p0.Step.Name != "40 rps" || p0.Metrics["proxy cpu%"] != 12 {
		t.Errorf("first point: %+v", p0)
	}
	if p1.ID != 1 || p1.Sent != 6 || p1.Answered != 0 || p1.P99 != 0 {
		t.Errorf("second point (6 sent, none answered): %+v", p1)
	}
	// Then live points on the same connection.
	s.Add(ok200(22, due, 2*time.Millisecond))
	tick()
	if p2 := st.point(t); p2.ID != 2 || p2.Answered != 1 {
		t.Errorf("live point: %+v", p2)
	}
	// A metric with a new unit is announced before the point holding it.
	s.SetMetric("proxy rss", "MiB", 40)
	tick()
	if ev := st.next(t); ev.Type != "units" || ev.Data != `{"proxy rss":"MiB"}` {
		t.Fatalf("units event before point 3: %+v", ev)
	}
	if p3 := st.point(t); p3.ID != 3 || p3.Metrics["proxy rss"] != 40 {
		t.Errorf("point 3: %+v", p3)
	}
}

func TestResumeByLastEventID(t *testing.T) {
	s, tick := newTestServer(t, Options{})
	for range 5 {
		tick()
	}
	// A reconnecting browser sends the id of the last point it got:
	// it gets the ones after it, once each.
	st := openStream(t, s, "2")
	for want := uint64(3); want <= 4; want++ {
		if p := st.point(t); p.ID != want {
			t.Fatalf("resume after 2: got point %d, want %d", p.ID, want)
		}
	}
	tick()
	if p := st.point(t); p.ID != 5 {
		t.Fatalf("after the history: point %d, want 5", p.ID)
	}
	// An id that is not a number counts as none: the whole history.
	if p := openStream(t, s, "x").point(t); p.ID != 0 {
		t.Errorf("bad Last-Event-ID: first point %d", p.ID)
	}
}

func TestHistoryKeepsTheLastHour(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	for range MaxPoints + 10 {
		s.publish(false)
	}
	s.mu.Lock()
	n, first := len(s.points), s.points[0].ID
	s.mu.Unlock()
	if n != MaxPoints || first != 10 {
		t.Fatalf("kept %d points from id %d, want %d from 10", n, first, MaxPoints)
	}
	// A browser resuming from a point already forgotten gets what is kept.
	st := openStream(t, s, "3")
	if p := st.point(t); p.ID != 10 {
		t.Errorf("resume after a forgotten point: first %d, want 10", p.ID)
	}
}

func TestEndedRunStopsReconnects(t *testing.T) {
	s, tick := newTestServer(t, Options{})
	tick()
	st := openStream(t, s, "")
	if p := st.point(t); p.ID != 0 {
		t.Fatalf("point %d", p.ID)
	}
	s.publish(true)
	if p := st.point(t); p.ID != 1 || !p.Ended {
		t.Fatalf("last point: %+v", p)
	}
	if _, open := <-st.events; open {
		t.Error("the stream stayed open after the run ended")
	}
	// A browser that has every point is told to stop reconnecting (204);
	// one that missed some still gets them.
	resp := get(t, s.URL(), "events", "1")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("reconnect after the end: %s, want 204", resp.Status)
	}
	if p := openStream(t, s, "0").point(t); p.ID != 1 || !p.Ended {
		t.Errorf("late reconnect: %+v", p)
	}
}

// TestLastPointCarriesTheRunsTotals: the ended point holds the whole
// run's figures (its last second alone would show 1 of 2 failed), and
// no other point carries them.
func TestLastPointCarriesTheRunsTotals(t *testing.T) {
	s, tick := newTestServer(t, Options{})
	for i := range 98 {
		s.Add(&results.Result{Code: 200, Latency: time.Duration(i+1) * time.Millisecond})
	}
	tick()
	s.Add(&results.Result{Code: 200, Latency: time.Second})
	s.Add(&results.Result{Code: 503, Latency: time.Millisecond})
	s.Add(&results.Result{Error: results.DroppedPrefix + "max-workers reached"})
	st := openStream(t, s, "")
	if p := st.point(t); p.Run != nil {
		t.Fatalf("a point before the end carries totals: %+v", p.Run)
	}
	s.publish(true)
	p := st.point(t)
	if !p.Ended || p.Run == nil {
		t.Fatalf("last point: %+v", p)
	}
	if p.OK != 1 || p.Answered != 2 {
		t.Errorf("the last second: %d of %d answered ok", p.OK, p.Answered)
	}
	r := p.Run
	if r.Requests != 100 || r.Dropped != 1 || r.Success != 0.99 || r.P50 < 49 || r.P50 > 51 || r.Max < 999 || r.Max > 1001 {
		t.Errorf("run totals %+v: want 100 requests, 99%% success, p50 ~50 ms, max ~1 s", r)
	}
}

func TestCloseWaitsForOpenPagesOnly(t *testing.T) {
	s, err := listen("127.0.0.1:0", Options{}, make(chan time.Time))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Close(time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Close with no page open took %v (the linger is for open pages)", d)
	}

	s, err = listen("127.0.0.1:0", Options{}, make(chan time.Time))
	if err != nil {
		t.Fatal(err)
	}
	st := openStream(t, s, "")
	closed := make(chan error, 1)
	go func() { closed <- s.Close(time.Minute) }()
	if p := st.point(t); !p.Ended {
		t.Fatalf("the open page's last point: %+v", p)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close still waiting after the page got the last point")
	}
}

func TestToken(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Options{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(0)
	if !strings.HasSuffix(s.URL(), "/?token=s3cret") {
		t.Fatalf("URL %s", s.URL())
	}
	base := strings.TrimSuffix(s.URL(), "?token=s3cret")
	for _, u := range []string{base, base + "events", base + "events?token=wrong", base + "?token=s3cre"} {
		resp := get(t, u, "", "")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "token") {
			t.Errorf("%s: %s %q, want 401 naming the token", u, resp.Status, body)
		}
	}
	resp := get(t, s.URL(), "", "")
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "new EventSource(url)") || !strings.Contains(string(page), "uPlot") {
		t.Errorf("the page with the token: %s", resp.Status)
	}
	openStream(t, s, "") // the event stream with the token
}

func TestAddresses(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": false, "127.1.2.3": false, "::1": false, "localhost": false,
		"0.0.0.0": true, "::": true, "10.1.2.3": true, "": true} {
		if got := webguard.NeedsToken(host); got != want {
			t.Errorf("needsToken(%q) = %v", host, got)
		}
	}
	// Beyond loopback a token is generated when none is given (not bound
	// here: tests stay on loopback).
	if a, b := webguard.NewToken(), webguard.NewToken(); len(a) != 32 || a == b {
		t.Errorf("tokens %q, %q: want 32 hex digits, a new one each time", a, b)
	}
	if _, err := Listen("nope", Options{}); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("a malformed address: %v", err)
	}
	ln, err := Listen("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close(0)
	if _, err := Listen(ln.ln.Addr().String(), Options{}); err == nil {
		t.Error("a port in use was accepted")
	}
}

func TestStepTimeLeft(t *testing.T) {
	started := time.Now()
	s, tick := newTestServer(t, Options{Stats: func() attack.Stats { return attack.Stats{Started: started} }})
	s.SetStep(Step{Name: "attack", Rate: "40/s", For: time.Hour})
	tick()
	s.SetStep(Step{Name: "warm", Index: 2, Of: 2, Rate: "a 1/s"}) // components starting: no end yet
	s.SetMetric("x", "", 1)
	tick()
	s.SetStep(Step{Name: "warm", Index: 2, Of: 2, Rate: "a 1/s", Ends: time.Now().Add(time.Minute)})
	tick()
	st := openStream(t, s, "")
	p0, p1, p2 := st.point(t), st.point(t), st.point(t)
	if l := p0.Step.Left; l < 3000 || l > 3600 || p0.Step.Ends.Sub(started).Round(time.Millisecond) != time.Hour {
		t.Errorf("an attack of an hour: %+v", p0.Step)
	}
	if p1.Step.Left != 0 || !p1.Step.Ends.IsZero() {
		t.Errorf("a step starting its components has no end: %+v", p1.Step)
	}
	if l := p2.Step.Left; l < 1 || l > 60 || p2.Metrics["x"] != 1 {
		t.Errorf("a step of a minute: %+v %v", p2.Step, p2.Metrics)
	}
	// The next step forgets the metrics of the one before.
	s.SetStep(Step{Name: "next", Index: 3, Of: 3})
	tick()
	if p3 := st.point(t); p3.Metrics != nil {
		t.Errorf("metrics carried into the next step: %v", p3.Metrics)
	}
}

// TestRealAttack feeds the view from a real attack on a loopback server
// that holds its answers: the view shows requests sent and in flight
// before any is answered, and at the end every request once.
func TestRealAttack(t *testing.T) {
	arrived := make(chan struct{}, 100)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	s, tick := newTestServer(t, Options{})
	a := newAttack(t, srv.URL, 20)
	s.Begin("", nil, a.Stats)
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background(), s.Add) }()
	for range 10 {
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
			t.Fatal("the attack sent no request")
		}
	}
	tick()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s.publish(true)
	st := openStream(t, s, "")
	first := st.point(t)
	if first.Sent < 10 || first.InFlight < 10 || first.Answered != 0 {
		t.Errorf("while the server held its answers: %+v", first)
	}
	var sent, answered uint64
	for p := first; ; p = st.point(t) {
		sent += p.Sent
		answered += p.Answered
		if p.Codes["418"] != p.Answered {
			t.Errorf("point %d: codes %v, answered %d", p.ID, p.Codes, p.Answered)
		}
		if p.Ended {
			break
		}
	}
	if sent != 20 || answered != 20 {
		t.Errorf("over the run: sent %d answered %d, want 20 each", sent, answered)
	}
}

// newAttack is a real attack of n requests at 100/s on url.
func newAttack(t *testing.T, url string, n int) *attack.Attacker {
	t.Helper()
	dec, err := targets.NewDecoder(strings.NewReader("GET "+url+"/\n"), targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := dec.All()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := targets.NewRoundRobin(ts)
	if err != nil {
		t.Fatal(err)
	}
	opts := attack.DefaultOptions()
	if opts.Schedule, err = schedule.Parse("100/s", time.Duration(n)*10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	a, err := attack.New(tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A loopback view without a token answers only Hosts that name this
// machine as a tool does: a page served from a name that resolves here
// (DNS rebinding) is refused, as the origin's admin API refuses it.
func TestHostChecked(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(0)
	for host, want := range map[string]int{"evil.example:80": http.StatusForbidden, "rebind.example": http.StatusForbidden,
		"localhost": 200, "": 200} {
		for _, path := range []string{"", "events"} {
			if path == "events" && want == 200 {
				continue // a stream: TestToken reads it
			}
			req, _ := http.NewRequest("GET", s.URL()+path, nil)
			if host != "" {
				req.Host = host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("Host %q /%s: %s, want %d", host, path, resp.Status, want)
			}
		}
	}
}

// TestLagBesideLatency: a point carries the median schedule lag of its
// requests beside their latency, and the attack's pacer, with the
// fallback's reason once the precise pacer fell back to batching.
func TestLagBesideLatency(t *testing.T) {
	var fb atomic.Pointer[attack.Fallback]
	s, tick := newTestServer(t, Options{Stats: func() attack.Stats {
		st := attack.Stats{Pacer: attack.PacerPrecise}
		if f := fb.Load(); f != nil {
			st.Pacer, st.Fallback = attack.PacerBatched, f
		}
		return st
	}})
	due := time.Now()
	for i, lag := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond} {
		s.Add(&results.Result{Seq: uint64(i), Code: 200, Due: due, Sent: due.Add(lag), Latency: 4 * time.Millisecond})
	}
	tick()
	fb.Store(&attack.Fallback{At: 2 * time.Second, LateShare: 0.9, Over: time.Second})
	tick()
	st := openStream(t, s, "")
	p0, p1 := st.point(t), st.point(t)
	if p0.LagP50 < 1.9 || p0.LagP50 > 2.1 || p0.P50 < 5.9 || p0.P50 > 6.1 || p0.Pacer != "precise" {
		t.Errorf("first point: lag p50 %v ms, p50 %v ms, pacer %q; want 2, 6, precise", p0.LagP50, p0.P50, p0.Pacer)
	}
	if !strings.HasPrefix(p1.Pacer, "batched: fell back to batching 2s into the attack") || p1.LagP50 != 0 {
		t.Errorf("second point: pacer %q, lag p50 %v", p1.Pacer, p1.LagP50)
	}
}
