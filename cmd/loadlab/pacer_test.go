package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

func TestAttackPacerBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-pacer=fast"}, `-pacer: want precise or batched, got "fast"`},
		{[]string{"-precise", "-pacer=batched"}, "-precise: is -pacer=precise"},
	} {
		var stderr bytes.Buffer
		code := runMain(append([]string{"attack", "-duration=1s"}, c.args...), strings.NewReader("GET http://127.0.0.1:1/\n"), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// attackReport runs loadlab attack with args against url, then loadlab
// report on its results; it returns the report's text and the trailer's
// health.
func attackReport(t *testing.T, url string, args ...string) (string, runblock.Health) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.lll")
	var stderr, stdout bytes.Buffer
	if code := runMain(append([]string{"attack", "-quiet", "-output=" + out}, args...), strings.NewReader("GET "+url+"\n"), io.Discard, &stderr); code != 0 {
		t.Fatalf("attack exit %d: %s", code, stderr.String())
	}
	if code := runMain([]string{"report", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("report exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := results.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for {
		var r results.Result
		if rd.Decode(&r) != nil {
			break
		}
	}
	h := runblock.UnknownHealth()
	if tr := rd.Trailer(); tr == nil || json.Unmarshal(tr.Health, &h) != nil {
		t.Fatalf("no trailer with the health in %s", out)
	}
	return stdout.String(), h
}

// TestReportLagNote: the batched pacer's lag (up to a millisecond) against
// a loopback server answering at once is most of the latency: the report
// says the generator's own delay is a visible share of what was measured.
// Against a server taking 20 ms the precise pacer's lag is far below 10%
// of it: no note. The Machine line names the pacer.
func TestReportLagNote(t *testing.T) {
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer fast.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond) }))
	defer slow.Close()

	text, h := attackReport(t, fast.URL, "-rate=1000", "-duration=1s", "-pacer=batched")
	if !strings.Contains(text, "Note: the load generator's own schedule lag (p50 ") || !strings.Contains(text, "-pacer=precise") {
		t.Errorf("batched against an instant server: no lag note in\n%s", text)
	}
	if h.Pacer != attack.PacerBatched || !strings.Contains(text, "pacer batched") {
		t.Errorf("batched: trailer pacer %q; report\n%s", h.Pacer, text)
	}

	text, h = attackReport(t, slow.URL, "-rate=100", "-duration=1s")
	if strings.Contains(text, "Note: the load generator") {
		t.Errorf("precise against a 20 ms server: a lag note in\n%s", text)
	}
	want, line := attack.PacerPrecise, "pacer precise"
	switch {
	case !attack.PreciseSupported:
		want, line = attack.PacerBatched, "pacer batched"
	case h.PacerFallback != "": // a loaded test machine: it may fall back, and says so
		want, line = attack.PacerBatched, "pacer fell back to batching"
	}
	if h.Pacer != want || !strings.Contains(text, line) {
		t.Errorf("default pacer: trailer %+v; report\n%s", h, text)
	}
}

// TestAttackPacerFallbackReported: with the generator's processors taken
// by a busy neighbour (goroutines spinning in the same process, started
// and stopped by the test), the default pacer falls back to batching on
// its own; the stream's trailer and the report's Machine line say so.
func TestAttackPacerFallbackReported(t *testing.T) {
	if !attack.PreciseSupported {
		t.Skip("no precise pacer in this build: nothing to fall back from")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var done atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !done.Load() {
				for i := range 1000 {
					x += i
				}
			}
			_ = x
		}()
	}
	text, h := attackReport(t, srv.URL, "-rate=2000", "-duration=3s")
	done.Store(true)
	wg.Wait()
	if h.Pacer != attack.PacerBatched || !strings.HasPrefix(h.PacerFallback, "fell back to batching ") {
		t.Fatalf("trailer: pacer %q, fallback %q", h.Pacer, h.PacerFallback)
	}
	if !strings.Contains(text, "pacer fell back to batching ") {
		t.Errorf("the report does not say the pacer fell back:\n%s", text)
	}
}
