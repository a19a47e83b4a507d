package origin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/loadlab/loadlab/internal/testwait"
)

// Stages switch at their times, in order, and never early. Stage 1 lasts
// 850 ms so that the answers are seen in it even on a machine that keeps
// the test off the CPU for a while.
func TestStagesSwitch(t *testing.T) {
	var mu sync.Mutex
	var switches []string // the simulator's log of stage switches
	_, srv := newTestServer(t, Options{Logf: func(format string, args ...any) {
		if line := fmt.Sprintf(format, args...); strings.Contains(line, ": stage ") {
			mu.Lock()
			switches = append(switches, line)
			mu.Unlock()
		}
	}})
	loaded := time.Now()
	mustLoad(t, srv, `{"route": "/s", "body": "ok", "stages": [
	  {"at": 0, "status": 200, "latency": 0},
	  {"at": "150ms", "status": 503, "latency": "0ms"},
	  {"at": 1000, "status": 404, "latency": 0}]}`)
	// Poll from the load until the last stage, noting when each status
	// was first answered.
	var seen []int
	firstSeen := map[int]time.Duration{}
	testwait.Eventually(t, 10*time.Second, "stage 2 (404)", func() bool {
		st := get(t, srv.URL+"/s").status
		if _, ok := firstSeen[st]; !ok {
			firstSeen[st] = time.Since(loaded)
			seen = append(seen, st)
		}
		return st == 404
	})
	// Stage 0 is missed only if the first answer came after it ended.
	if fmt.Sprint(seen) != "[200 503 404]" && fmt.Sprint(seen) != "[503 404]" {
		t.Errorf("statuses %v, want 200 then 503 then 404", seen)
	}
	if at, ok := firstSeen[503]; ok && at < 150*time.Millisecond {
		t.Errorf("stage 1 answered %v after the load, before its 150ms", at)
	}
	if at := firstSeen[404]; at < time.Second {
		t.Errorf("stage 2 answered %v after the load, before its 1s", at)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{
		"origin: route /s: stage 0: status 200 latency 0",
		"origin: route /s: stage 1: status 503 latency 0",
		"origin: route /s: stage 2: status 404 latency 0",
	}; strings.Join(switches, "\n") != strings.Join(want, "\n") {
		t.Errorf("stage switches logged:\n%s\nwant\n%s", strings.Join(switches, "\n"), strings.Join(want, "\n"))
	}
	rs := get(t, srv.URL+"/_admin/routes_status")
	if string(rs.body) != "/s 404 0" {
		t.Errorf("routes_status = %q", rs.body)
	}
}

func TestStageNotYetStarted(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"route": "/late", "stages": [{"at": "10s", "status": 200}]}`)
	r := get(t, srv.URL+"/late")
	if r.status != 406 || string(r.body) != recipeNotSet("/late") {
		t.Errorf("before the first stage: %d %q", r.status, r.body)
	}
}

// A load replaces the routes it names: the old route's pending stage is
// cancelled (its timer stopped, and a timer already firing finds the route
// stopped), so it can switch nothing, not even the old route's metrics.
func TestLoadCancelsPendingStages(t *testing.T) {
	sim, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"stages": [{"at": 0, "status": 200}, {"at": "150ms", "status": 500}]}`)
	old := sim.tab.Load().match("/x")
	mustLoad(t, srv, `{"stages": [{"at": 0, "status": 201}]}`)
	if cur := sim.tab.Load().match("/x"); cur == old {
		t.Fatal("the reload kept the old route")
	}
	old.mu.Lock()
	stopped, pending := old.stopped, len(old.timers)
	old.mu.Unlock()
	if !stopped || pending != 0 {
		t.Errorf("old route after reload: stopped %v, %d stage timers pending; want stopped, none", stopped, pending)
	}
	if r := get(t, srv.URL+"/x"); r.status != 201 {
		t.Errorf("after reload: %d; the old recipe's pending stage should have been cancelled", r.status)
	}
}

func TestRouteMatching(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `[
	 {"route": "/news", "body": "exact", "stages": [{"status": 200}]},
	 {"route": "/news*", "body": "news-prefix", "stages": [{"status": 200}]},
	 {"route": "/news/live*", "body": "live-prefix", "stages": [{"status": 200}]},
	 {"route": "/sport", "body": "sport", "stages": [{"status": 200}]}]`)
	cases := map[string]string{
		"/news": "exact", "/news/uk": "news-prefix", "/newsround": "news-prefix",
		"/news/live/1": "live-prefix", "/sport": "sport",
	}
	for path, want := range cases {
		if r := get(t, srv.URL+path); string(r.body) != want {
			t.Errorf("%s: %q, want %q", path, r.body, want)
		}
	}
	r := get(t, srv.URL+"/sport/football")
	if r.status != 406 || string(r.body) != recipeNotSet("/sport/football") {
		t.Errorf("unmatched: %d %q", r.status, r.body)
	}
	// A later load adds routes and replaces same-named ones.
	mustLoad(t, srv, `{"route": "/sport", "body": "sport2", "stages": [{"status": 200}]}`)
	if r := get(t, srv.URL+"/sport"); string(r.body) != "sport2" {
		t.Errorf("replaced route: %q", r.body)
	}
	if r := get(t, srv.URL+"/news"); string(r.body) != "exact" {
		t.Errorf("kept route: %q", r.body)
	}
	rt := get(t, srv.URL+"/_admin/routes")
	if string(rt.body) != "/news\n/news*\n/news/live*\n/sport" {
		t.Errorf("routes = %q", rt.body)
	}
}

func statuses(t *testing.T, url string, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = get(t, url).status
	}
	return out
}

func TestStatusMixSeeded(t *testing.T) {
	const mix = `{"stages": [{"status": {"200": 80, "503": 20}}]}`
	_, a := newTestServer(t, Options{Seed: 7})
	_, b := newTestServer(t, Options{Seed: 7})
	_, c := newTestServer(t, Options{Seed: 8})
	for _, s := range []*httptest.Server{a, b, c} {
		mustLoad(t, s, mix)
	}
	const n = 400
	sa, sb, sc := statuses(t, a.URL+"/", n), statuses(t, b.URL+"/", n), statuses(t, c.URL+"/", n)
	n503 := 0
	for i := range sa {
		if sa[i] != sb[i] {
			t.Fatalf("same seed, request %d: %d vs %d", i, sa[i], sb[i])
		}
		if sa[i] == 503 {
			n503++
		}
	}
	if n503 < n*12/100 || n503 > n*28/100 {
		t.Errorf("503 share %d/%d, want ~20%%", n503, n)
	}
	if equalInts(sa, sc) {
		t.Errorf("different seeds gave the same %d statuses", n)
	}
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLatencyDistributionServed(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"stages": [{"status": 200, "latency": "40ms..80ms"}]}`)
	for range 5 {
		r := get(t, srv.URL+"/")
		if r.elapsed < 40*time.Millisecond || r.elapsed > 2*time.Second {
			t.Errorf("latency %v outside 40ms..80ms (+slack)", r.elapsed)
		}
	}
	mustLoad(t, srv, `{"stages": [{"status": 200, "latency": {"distribution": "normal", "mean": "60ms", "stddev": "1ms"}}]}`)
	if r := get(t, srv.URL+"/"); r.elapsed < 50*time.Millisecond {
		t.Errorf("normal(60ms) answered in %v", r.elapsed)
	}
}

func TestFaults(t *testing.T) {
	body := strings.Repeat("x", 4000)
	cases := []struct {
		fault string
		check func(t *testing.T, r result)
	}{
		{"reset", func(t *testing.T, r result) {
			if r.err == nil || !(errors.Is(r.err, syscall.ECONNRESET) || strings.Contains(r.err.Error(), "reset") || errors.Is(r.err, io.EOF)) {
				t.Errorf("reset: err = %v", r.err)
			}
		}},
		{"close", func(t *testing.T, r result) {
			if r.err == nil || !errors.Is(r.err, io.EOF) {
				t.Errorf("close: err = %v, want EOF", r.err)
			}
		}},
		{"truncate", func(t *testing.T, r result) {
			if r.status != 200 || !errors.Is(r.err, io.ErrUnexpectedEOF) || len(r.body) != 1000 {
				t.Errorf("truncate: %d, %d bytes, err %v", r.status, len(r.body), r.err)
			}
		}},
		{"slow_body", func(t *testing.T, r result) {
			if r.err != nil || len(r.body) != 4000 || r.elapsed < 250*time.Millisecond {
				t.Errorf("slow_body: %d bytes in %v, err %v", len(r.body), r.elapsed, r.err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			_, srv := newTestServer(t, Options{})
			mustLoad(t, srv, `{"body": "`+body+`", "stages": [{"status": 200, "faults": {"`+c.fault+`": 1,
			  "truncate": null}}]}`)
			if c.fault == "truncate" {
				mustLoad(t, srv, `{"body": "`+body+`", "stages": [{"status": 200, "faults": {"truncate": {"probability": 1, "fraction": 0.25}}}]}`)
			}
			if c.fault == "slow_body" {
				mustLoad(t, srv, `{"body": "`+body+`", "stages": [{"status": 200, "faults": {"slow_body": {"probability": 1, "rate": "10kb"}}}]}`)
			}
			c.check(t, get(t, srv.URL+"/"))
		})
	}
}

func TestHangUntilClientGivesUp(t *testing.T) {
	sim, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"stages": [{"status": 200, "faults": {"hang": 1}}]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/", nil)
	start := time.Now()
	_, err := client.Do(req)
	if err == nil || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("hang answered: err %v after %v", err, time.Since(start))
	}
	testwait.Eventually(t, 10*time.Second, "the hung request to be released", func() bool {
		return sim.counts.snapshot()["aborted"] == 1
	})
}

func TestCloseReleasesWaiters(t *testing.T) {
	sim, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"stages": [{"status": 200, "latency": "30s"}]}`)
	done := make(chan result, 1)
	go func() { done <- get(t, srv.URL+"/") }()
	// Close only once the request is waiting on its latency: closing first
	// would fail it without testing the release.
	testwait.Eventually(t, 10*time.Second, "the request to wait on its latency", func() bool {
		var m dto.Metric
		return sim.m.inFlight.Write(&m) == nil && m.GetGauge().GetValue() == 1
	})
	_ = sim.Close()
	select {
	case r := <-done:
		if r.err == nil {
			t.Errorf("request waiting on latency got an answer %d after Close", r.status)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Close did not release a request waiting on its latency")
	}
}

func TestOverrides(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"body": "hello", "stages": [{"status": 200}]}`)
	if r := get(t, srv.URL+"/a?status=503&delay=120ms"); r.status != 503 || string(r.body) != "Error 503" || r.elapsed < 120*time.Millisecond {
		t.Errorf("query override: %d %q in %v", r.status, r.body, r.elapsed)
	}
	if r := get(t, srv.URL+"/a", "X-Origin-Status", "404"); r.status != 404 {
		t.Errorf("header override: %d", r.status)
	}
	if r := get(t, srv.URL+"/a?fault=close"); r.err == nil {
		t.Errorf("fault override: answered %d", r.status)
	}
	r := get(t, srv.URL+"/a?delay=soon")
	if r.status != 400 || !strings.Contains(string(r.body), `"field":"delay"`) {
		t.Errorf("bad override: %d %s", r.status, r.body)
	}
	_, off := newTestServer(t, Options{NoOverrides: true})
	mustLoad(t, off, `{"body": "hello", "stages": [{"status": 200}]}`)
	if r := get(t, off.URL+"/a?status=503&delay=soon", "X-Origin-Fault", "reset"); r.status != 200 || string(r.body) != "hello" {
		t.Errorf("overrides off: %d %q %v", r.status, r.body, r.err)
	}
}

func TestHTTP1ConnReuse(t *testing.T) {
	// Sanity: a normal answer keeps the connection open for the next one.
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"body": "x", "stages": [{"status": 200}]}`)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
	buf := make([]byte, 4096)
	got := ""
	for strings.Count(got, "HTTP/1.1 200") < 2 {
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, got)
		}
		got += string(buf[:n])
	}
}

// Pipelined requests are answered one after the other, each after its own
// latency counted from when the one before was answered (as net/http's
// server does), also when the second arrived during the first's wait.
func TestPipelinedLatency(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"body": "x", "stages": [{"status": 200, "latency": "150ms"}]}`)
	for _, gap := range []time.Duration{0, 50 * time.Millisecond} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		start := time.Now()
		_, _ = io.WriteString(conn, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n")
		time.Sleep(gap)
		_, _ = io.WriteString(conn, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(conn)
		for i, min := range []time.Duration{150 * time.Millisecond, 300 * time.Millisecond} {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("gap %v, answer %d: %v", gap, i+1, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if took := time.Since(start); took < min || took > min+time.Second {
				t.Errorf("gap %v, answer %d after %v, want %v or a little more", gap, i+1, took, min)
			}
		}
		conn.Close()
	}
}
