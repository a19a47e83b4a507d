package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// TestShardsMergeIntoOneRun: three shards of one attack, started together
// with -start-at against a loopback server, send exactly the
// single-machine schedule (every global sequence number once), and
// `loadlab report` of their files is one run with a per-shard breakdown.
func TestShardsMergeIntoOneRun(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{} // {{seq}} as the server received it
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Query().Get("seq")]++
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	target := []byte("GET " + srv.URL + "/x?seq={{seq}}\n")
	start := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	files := make([]string, 3)
	var wg sync.WaitGroup
	for i := range files {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard%d.lll", i+1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := runCLI(t, target, "attack", "-quiet", "-shard", fmt.Sprintf("%d/3", i+1), "-rate", "100/s",
				"-duration", "2s", "-start-at", start, "-output", files[i])
			if code != 0 {
				t.Errorf("shard %d: exit %d: %s", i+1, code, stderr)
			}
		}()
	}
	wg.Wait()
	// Every global sequence number 0..199 exactly once, due on the global
	// schedule: 10 ms apart from the common start.
	t0, _ := time.Parse(time.RFC3339Nano, start)
	seen := map[uint64]int{}
	var first, last time.Time // sends, over every shard
	for i, f := range files {
		src, err := results.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		if src.Meta.Shard == nil || src.Meta.Shard.Segment != fmt.Sprintf("%d/3:%d/3", i, i+1) && !(i == 0 && src.Meta.Shard.Segment == "0:1/3") && !(i == 2 && src.Meta.Shard.Segment == "2/3:1") {
			t.Errorf("%s: shard record %+v", f, src.Meta.Shard)
		}
		var r results.Result
		for src.Decode(&r) == nil {
			seen[r.Seq]++
			if first.IsZero() || r.Sent.Before(first) {
				first = r.Sent
			}
			if r.Sent.After(last) {
				last = r.Sent
			}
			if want := t0.Add(time.Duration(r.Seq) * 10 * time.Millisecond); !r.Due.Equal(want) {
				t.Fatalf("seq %d due %v, want %v", r.Seq, r.Due, want)
			}
			if r.Sent.Before(r.Due.Add(-time.Millisecond)) {
				t.Fatalf("seq %d sent %v before it was due", r.Seq, r.Due.Sub(r.Sent))
			}
		}
		src.Close()
	}
	if len(seen) != 200 {
		t.Fatalf("%d distinct sequence numbers, want 200", len(seen))
	}
	for seq, n := range seen {
		if seq >= 200 || n != 1 {
			t.Fatalf("seq %d recorded %d times", seq, n)
		}
	}
	// {{seq}} renders the global sequence number: the server saw 0..199.
	mu.Lock()
	for seq := 0; seq < 200; seq++ {
		if n := got[fmt.Sprint(seq)]; n != 1 {
			t.Errorf("the server received {{seq}}=%d %d times", seq, n)
		}
	}
	mu.Unlock()
	code, out, stderr := runCLI(t, nil, append([]string{"report"}, files...)...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"200, 200, 0 (every scheduled request recorded once)", "Shard", "shard2.lll", "1/3:2/3"} {
		if !strings.Contains(out, want) {
			t.Errorf("merged report lacks %q:\n%s", want, out)
		}
	}
	// One run's rate: the 200 requests over the time from the first send
	// to the last, whichever shard sent them (about 100/s; less when the
	// machine stalled a shard and it sent late).
	var total int
	var rate float64
	if i := strings.Index(out, "Requests      [total, rate, throughput]"); i < 0 {
		t.Errorf("merged report has no requests line:\n%s", out)
	} else if _, err := fmt.Sscanf(strings.Fields(out[i:])[4]+" "+strings.Fields(out[i:])[5], "%d, %f,", &total, &rate); err != nil {
		t.Errorf("requests line: %v\n%s", err, out)
	}
	if want := 200 / last.Sub(first).Seconds(); total != 200 || math.Abs(rate-want) > 0.011 {
		t.Errorf("merged report: %d requests at %.2f/s, want 200 at %.2f/s (sent over %v)\n%s", total, rate, want, last.Sub(first), out)
	}
	// Two of three shards: their own requests are all there, none missing,
	// and the absent shard is named (the whole set names none).
	if strings.Contains(stderr, "absent") {
		t.Errorf("the whole set: %s", stderr)
	}
	code, out, stderr = runCLI(t, nil, "report", files[0], files[2])
	if code != 0 || !strings.Contains(out, "(every scheduled request recorded once)") ||
		!strings.Contains(stderr, "warning: shard 2/3 of the split attack is absent") {
		t.Errorf("two shards: exit %d\n%s\n%s", code, out, stderr)
	}
	// A shard of another attack is refused, unless forced.
	other := filepath.Join(dir, "other.lll")
	if code, _, stderr := runCLI(t, target, "attack", "-quiet", "-shard", "1/3", "-rate", "50/s", "-duration", "200ms", "-output", other); code != 0 {
		t.Fatalf("other shard: %s", stderr)
	}
	code, _, stderr = runCLI(t, nil, "report", files[0], other)
	if code != 2 || !strings.Contains(stderr, "shards of different attacks") {
		t.Errorf("shards of two attacks: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI(t, nil, "report", "-force", files[0], other); code != 0 {
		t.Errorf("-force: exit %d", code)
	}
	// encode refuses them too, with the same line, and merges them when
	// forced; the shards of one attack encode as one stream.
	code, _, stderr = runCLI(t, nil, "encode", "-to", "csv", files[0], other)
	if code != 2 || !strings.Contains(stderr, "shards of different attacks") {
		t.Errorf("encode of shards of two attacks: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI(t, nil, "encode", "-force", "-to", "csv", files[0], other); code != 0 {
		t.Errorf("encode -force: exit %d", code)
	}
	if code, csv, stderr := runCLI(t, nil, append([]string{"encode", "-to", "csv"}, files...)...); code != 0 || strings.Count(csv, "\n") != 200 {
		t.Errorf("encode of the shards: exit %d, %d lines, %s", code, strings.Count(csv, "\n"), stderr)
	}
	var js map[string]any
	_, out, _ = runCLI(t, nil, append([]string{"report", "-type", "json"}, files...)...)
	if err := json.Unmarshal([]byte(out), &js); err != nil || js["requests"].(float64) != 200 {
		t.Errorf("json report of the shards: %v %v", err, js["requests"])
	}
}

func TestShardFlagsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-shard", "5/4"}, "-shard: shards count from 1 to 4"},
		{[]string{"-shard", "1/2", "-segment", "0:1/2"}, "not both"},
		{[]string{"-segment", "0:1/3", "-segments", "0,1/2,1"}, "-segment: segment 0:1/3 is not between"},
		{[]string{"-segments", "0,1/2,1"}, "say which segment"},
		{[]string{"-start-at", "2001-01-01T00:00:00Z"}, "-start-at: 2001-01-01T00:00:00Z is"},
		{[]string{"-start-at", "tomorrow"}, "-start-at: want an RFC 3339 time"},
	} {
		code, _, stderr := runCLI(t, []byte("GET http://127.0.0.1:9/\n"), append([]string{"attack", "-rate", "1/s", "-duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("attack %v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestVegetaConnectionFlagsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-connect-to", "example.test:80"}, "-connect-to: want src:port:dst:port"},
		{[]string{"-laddr", "nope"}, "-laddr: want an IP address"},
		{[]string{"-cert", "/nope.pem", "-key", "/nope.pem"}, "-cert: /nope.pem"},
		{[]string{"-cert", "/nope.pem"}, "-cert and -key go together"},
		{[]string{"-root-certs", "/nope.pem"}, "-root-certs:"},
	} {
		code, _, stderr := runCLI(t, []byte("GET http://127.0.0.1:9/\n"), append([]string{"attack", "-rate", "1/s", "-duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("attack %v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestWatchAddressesBadInput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-prometheus-addr", busy}, "-prometheus-addr:"},
		{[]string{"-ui", busy}, "-ui:"},
		{[]string{"-ui", "nope"}, "-ui: want host:port"},
		{[]string{"-ui-token", "x"}, "-ui-token: goes with -ui"},
	} {
		code, _, stderr := runCLI(t, []byte("GET http://127.0.0.1:9/\n"), append([]string{"attack", "-rate", "1/s", "-duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("attack %v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
