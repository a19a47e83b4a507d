package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/live"
)

// TestLiveBadAddressSendsNothing: a busy or malformed -ui is one line
// naming the flag and exit 2, before any request is sent (attack) and
// before the output folder is made (run).
func TestLiveBadAddressSendsNothing(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte("target: "+srv.URL+"\nscenarios:\n  - {target: \"GET ${target}/\", rate: 50/s, duration: 1s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"attack", "-rate", "50/s", "-duration", "1s", "-ui", ln.Addr().String()}, "-ui: listen tcp " + ln.Addr().String()},
		{[]string{"attack", "-rate", "50/s", "-duration", "1s", "-ui", "8089"}, "-ui: want host:port"},
		{[]string{"run", "-out", out, "-ui", ln.Addr().String(), plan}, "-ui: listen tcp"},
		{[]string{"run", "-out", out, "-ui", "127.0.0.1:http-alt:1", plan}, "-ui: want host:port"},
	} {
		code, _, stderr := runCLI(t, []byte("GET "+srv.URL+"/\n"), c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent despite a bad -ui", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("run made its output folder despite a bad -ui")
	}
}

// lockedBuffer is a stderr the test reads while the command writes it.
type lockedBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	url   chan<- string // gets the live view's URL once
	found bool
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if m := regexp.MustCompile(`live view: (\S+)`).FindStringSubmatch(l.b.String()); m != nil && !l.found {
		l.url <- m[1]
		l.found = true
	}
	return len(p), nil
}

// TestRunLive: `loadlab run -ui` on a two-step plan against a loopback
// server. The page's event stream names each step with its rate, counts
// the requests sent, carries the generator's sampled CPU, and ends.
func TestRunLive(t *testing.T) {
	connected := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-connected // the first answers wait until the test watches
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	defer once.Do(func() { close(connected) })
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte("name: live\ntarget: "+srv.URL+"\nmatrix: {rate: [20, 40]}\nstep_name: \"${rate} rps\"\n"+
		"scenarios:\n  - {name: search, target: \"GET ${target}/\", rate: \"${rate}/s\", duration: 2500ms}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	stderr := &lockedBuffer{url: urls}
	done := make(chan int, 1)
	go func() {
		done <- runMain([]string{"run", "-quiet", "-out", filepath.Join(dir, "out"), "-ui", "127.0.0.1:0", plan}, nil, discard{}, stderr)
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("no live view URL on stderr")
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Get(url + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	once.Do(func() { close(connected) })
	points := livePoints(t, resp.Body)
	if code := <-done; code != 0 {
		t.Fatalf("run exited %d: %s", code, stderr.b.String())
	}
	var sent, ok uint64
	steps := map[string]bool{}
	cpu := false
	for _, p := range points {
		sent += p.Sent
		ok += p.OK
		if p.Step != nil {
			steps[p.Step.Name+" at "+p.Step.Rate] = true
		}
		for name := range p.Metrics {
			cpu = cpu || strings.HasPrefix(name, "loadlab cpu")
		}
	}
	if len(points) == 0 || !points[len(points)-1].Ended {
		t.Fatalf("%d points, the last not marked ended", len(points))
	}
	if sent != 150 || ok != 150 {
		t.Errorf("sent %d, answered ok %d over the run; want 50 + 100 each", sent, ok)
	}
	if !steps["20 rps at search 20/s"] || !steps["40 rps at search 40/s"] {
		t.Errorf("steps seen: %v", steps)
	}
	if !cpu {
		t.Errorf("no sampled generator CPU in the points")
	}
}

// livePoints reads a live view's event stream to its end: its points
// (events with a type, such as units, are not points).
func livePoints(t *testing.T, r io.Reader) []live.Point {
	t.Helper()
	var points []live.Point
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	named := false
	for sc.Scan() {
		line := sc.Text()
		switch data, isData := strings.CutPrefix(line, "data: "); {
		case strings.HasPrefix(line, "event: "):
			named = true
		case line == "":
			named = false
		case isData && !named:
			var p live.Point
			if err := json.Unmarshal([]byte(data), &p); err != nil {
				t.Fatal(err)
			}
			points = append(points, p)
		}
	}
	return points
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestAttackLiveClosedLoop: `loadlab attack -rate=0 -max-workers 3 -ui`
// names its step on the live view by its users ("3 users"), not by a
// rate of 0.
func TestAttackLiveClosedLoop(t *testing.T) {
	connected := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-connected
		time.Sleep(5 * time.Millisecond)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	defer once.Do(func() { close(connected) })
	urls := make(chan string, 1)
	stderr := &lockedBuffer{url: urls}
	done := make(chan int, 1)
	go func() {
		done <- runMain([]string{"attack", "-rate=0", "-max-workers", "3", "-duration", "1500ms", "-quiet", "-output", filepath.Join(t.TempDir(), "r.bin"), "-ui", "127.0.0.1:0"},
			strings.NewReader("GET "+srv.URL+"/\n"), discard{}, stderr)
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(30 * time.Second):
		t.Fatal("no live view URL on stderr")
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Get(url + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	once.Do(func() { close(connected) })
	loads := map[string]bool{}
	for _, p := range livePoints(t, resp.Body) {
		if p.Step != nil {
			loads[p.Step.Rate] = true
		}
	}
	if code := <-done; code != 0 {
		t.Fatalf("attack exited %d: %s", code, stderr.b.String())
	}
	if len(loads) != 1 || !loads["3 users"] {
		t.Errorf("the live view's step load: %v, want only \"3 users\"", loads)
	}
}
