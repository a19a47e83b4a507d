package live

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// readEvents reads n events from the stream at url (with lastID when not
// empty).
func readEvents(t *testing.T, url, lastID string, n int) []Point {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	var out []Point
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && len(out) < n {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var p Point
			if err := json.Unmarshal([]byte(data), &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

func TestEventsHistoryAndResume(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Options{InFlight: func() int64 { return 3 }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(0)
	due := time.Now()
	for i := 0; i < 20; i++ {
		s.Add(&results.Result{Seq: uint64(i), Due: due, Sent: due.Add(time.Millisecond), Latency: 5 * time.Millisecond, Code: 200})
	}
	s.Add(&results.Result{Seq: 20, Due: due, Sent: due, Latency: time.Millisecond, Code: 0, Error: "connection refused"})
	s.SetStep(Step{Name: "40 rps", Index: 1, Of: 3, Rate: "40/s"})
	s.SetMetric("proxy cpu %", 12)
	s.publish(false) // a second's point, without waiting for the ticker
	s.publish(false)
	events := s.URL() + "events"
	// A new browser gets the history first.
	ps := readEvents(t, events, "", 2)
	if len(ps) != 2 || ps[0].ID != 0 || ps[0].Sent != 21 || ps[0].OK != 20 || ps[0].Codes["0"] != 1 || ps[0].InFlight != 3 {
		t.Fatalf("history: %+v", ps)
	}
	if ps[0].P50 < 5 || ps[0].P50 > 7 || ps[0].Step == nil || ps[0].Step.Name != "40 rps" || ps[0].Metrics["proxy cpu %"] != 12 {
		t.Fatalf("first point: %+v", ps[0])
	}
	// A reconnecting browser resumes after its last event, no duplicates.
	s.publish(false)
	ps = readEvents(t, events, "1", 1)
	if len(ps) != 1 || ps[0].ID != 2 {
		t.Fatalf("resume after 1: %+v", ps)
	}
	// The page is served, with uPlot inline.
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text())
	}
	if !strings.Contains(b.String(), "new EventSource(url)") || !strings.Contains(b.String(), "uPlot") {
		t.Errorf("page lacks the event source or uPlot")
	}
}

func TestTokenAndAddresses(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Options{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(0)
	base := strings.TrimSuffix(s.URL(), "?token=s3cret")
	for _, u := range []string{base, base + "events", base + "events?token=wrong"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without the token: %s", u, resp.Status)
		}
	}
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the token: %s", resp.Status)
	}
	for host, want := range map[string]bool{"127.0.0.1": false, "::1": false, "localhost": false, "0.0.0.0": true, "10.1.2.3": true, "": true} {
		if got := needsToken(host); got != want {
			t.Errorf("needsToken(%q) = %v", host, got)
		}
	}
	if _, err := Listen("nope", Options{}); err == nil {
		t.Error("a malformed address was accepted")
	}
	if _, err := Listen(strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http://"), Options{}); err == nil {
		t.Error("a port in use was accepted")
	}
}
