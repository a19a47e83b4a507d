package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
)

// gateArchive is a real SQLite archive filled by real attacks (the real
// binary) against a loopback origin whose answers take delay.
type gateArchive struct {
	t     *testing.T
	db    string
	dir   string
	url   string
	delay atomic.Int64 // ns
	ids   map[string][]string
}

func newGateArchive(t *testing.T) *gateArchive {
	g := &gateArchive{t: t, dir: t.TempDir(), ids: map[string][]string{}}
	g.db = filepath.Join(g.dir, "ci.db")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Duration(g.delay.Load()))
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	g.url = srv.URL
	return g
}

// attack runs one 1 s attack at 40/s against the origin answering in
// delay, and archives it labelled commit=commit. Latency is measured from
// the due time, so a generator the loaded machine starved adds its
// lateness: a run whose schedule lag p99 exceeds 5% of its p99 (half of
// what makes a run noisy) is made again; six tries, then the machine is
// too loaded for the test to judge anything.
func (g *gateArchive) attack(commit string, delay time.Duration) string {
	t := g.t
	t.Helper()
	g.delay.Store(int64(delay))
	for try := 1; ; try++ {
		file := filepath.Join(g.dir, fmt.Sprintf("%s-%d-%d.lll", commit, len(g.ids[commit]), try))
		if _, errOut, code := runBinary(t, "GET "+g.url+"/\n", "attack", "-rate", "40/s", "-duration", "1s", "-quiet", "-output", file); code != 0 {
			t.Fatalf("attack: exit %d: %s", code, errOut)
		}
		out, _, code := runBinary(t, "", "report", "-type", "json", file)
		var r struct {
			Latencies map[string]int64 `json:"latencies"`
			Lag       struct {
				P99 int64 `json:"99th"`
			} `json:"lag"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("report: exit %d %s", code, out)
		}
		if r.Lag.P99*10 > r.Latencies["99th"] { // noisy as the verdicts judge it (runblock.NoisyLagShare)
			t.Logf("%s: lag p99 %v of p99 %v: the machine was busy, again", commit, time.Duration(r.Lag.P99), time.Duration(r.Latencies["99th"]))
			if try == 6 {
				t.Fatalf("the machine was too loaded to make a clean run in %d tries", try)
			}
			continue
		}
		out, errOut, code := runBinary(t, "", "archive", "add", "-db", g.db, "-label", "commit="+commit, file)
		if code != 0 {
			t.Fatalf("archive add: exit %d %s", code, errOut)
		}
		id := strings.TrimSpace(out)
		g.ids[commit] = append(g.ids[commit], id)
		return id
	}
}

// gate runs the CI gate through the real binary.
func (g *gateArchive) gate(extra ...string) (code int, stdout, stderr string) {
	args := append([]string{"archive", "trend", "-db", g.db, "-by", "commit", "-metric", "p50", "-fail-on-regression"}, extra...)
	stdout, stderr, code = runBinary(g.t, "", args...)
	g.t.Logf("gate %v: exit %d\n%s%s", extra, code, stdout, stderr)
	return code, stdout, stderr
}

// The CI gate's exit codes through the real binary over a real archive
// of real attacks: 2 for nothing to judge, 0 for no regression, 1 for a
// regression (naming the run, its size and interval), 0 once it is
// accepted, 3 when the runs cannot tell; -since and -last bound the window.
func TestArchiveGateExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("makes about ten one-second attacks")
	}
	g := newGateArchive(t)
	st, err := archive.Open(context.Background(), g.db) // an empty archive
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if code, _, stderr := g.gate(); code != 2 || !strings.Contains(stderr, "no run of the archive matches") {
		t.Fatalf("empty archive: exit %d %q", code, stderr)
	}

	for range 3 {
		g.attack("c1", 300*time.Millisecond)
	}
	for range 3 {
		g.attack("c2", 300*time.Millisecond)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-by", "comit"}, `-by: no run is labelled "comit" (the runs' labels: commit)`},
		{[]string{"-label", "env=prod"}, "-label: no run of the archive matches"},
		{[]string{"-scenario", "checkout"}, `-scenario: no run of the archive matching the filters has a scenario "checkout"`},
		{[]string{"-since", "c9"}, "-since: no run is labelled commit=c9"},
		{[]string{"-last", "-1"}, "-last"},
	} {
		if code, _, stderr := g.gate(tc.args...); code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}

	// Three runs of an unchanged build against three: no change of 10%.
	if code, stdout, stderr := g.gate("-min-change", "10%"); code != 0 || !strings.Contains(stdout, "newest: commit c2 (run "+g.ids["c2"][0]+")") ||
		!strings.Contains(stdout, "no change of 10.0% or more in p50") {
		t.Errorf("unchanged: exit %d\n%s%s", code, stdout, stderr)
	}
	// The newest build twice as slow, two runs: a regression.
	g.attack("c3", 600*time.Millisecond)
	g.attack("c3", 600*time.Millisecond)
	code, stdout, stderr := g.gate()
	if code != 1 || !strings.Contains(stderr, "regression: commit c3 (run "+g.ids["c3"][0]+")") || !strings.Contains(stderr, "p50 worse by +") ||
		!strings.Contains(stderr, "99% interval") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("slower: exit %d\n%s%s", code, stdout, stderr)
	}
	// Accepted: the gate passes.
	if out, errOut, code := runBinary(t, "", "archive", "accept", "-db", g.db, g.ids["c3"][0], "-note", "twice the work on purpose"); code != 0 || !strings.Contains(out, "accepted run "+g.ids["c3"][0]) {
		t.Fatalf("accept: exit %d %s%s", code, out, errOut)
	}
	if code, stdout, _ := g.gate(); code != 0 || !strings.Contains(stdout, "accepted") {
		t.Errorf("accepted: exit %d\n%s", code, stdout)
	}
	// The next build faster, one run: judged against the accepted level
	// with the replicates' run-to-run noise, an improvement.
	g.attack("c4", 450*time.Millisecond)
	if code, stdout, _ := g.gate(); code != 0 || !strings.Contains(stdout, "against the level since commit c3") || !strings.Contains(stdout, "p50 better by -") {
		t.Errorf("faster: exit %d\n%s", code, stdout)
	}
	// One run of c5 against the one of c4, the window holding nothing
	// else (-last 2, -since c4): the run-to-run noise is unknown, cannot
	// tell; a CI script would run c5 again.
	g.attack("c5", 450*time.Millisecond)
	if code, _, stderr := g.gate("-last", "2"); code != 3 || !strings.Contains(stderr, "cannot tell: one run on each side and no replicates") {
		t.Errorf("-last 2: exit %d %s", code, stderr)
	}
	code, stdout, _ = g.gate("-since", "c4", "-type", "json")
	var tr struct {
		Points []struct {
			Label string `json:"label"`
		} `json:"points"`
		Gate struct {
			Label   string `json:"label"`
			Verdict struct {
				Outcome string   `json:"outcome"`
				Lo      *float64 `json:"lo"`
			} `json:"verdict"`
		} `json:"gate"`
	}
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil || code != 3 || len(tr.Points) != 2 || tr.Points[0].Label != "c4" ||
		tr.Gate.Label != "c5" || tr.Gate.Verdict.Outcome != "cannot tell" || tr.Gate.Verdict.Lo != nil {
		t.Errorf("-since c4: exit %d %v %+v", code, err, tr)
	}
	// -last 1: the newest build alone has nothing to be judged against.
	if code, _, stderr := g.gate("-last", "1"); code != 3 || !strings.Contains(stderr, "nothing before it") {
		t.Errorf("-last 1: exit %d %s", code, stderr)
	}
	// The whole series: c5 against the level since the last change (c4),
	// with the replicates of c1, c2 and c3 for the noise: no change.
	if code, stdout, _ := g.gate(); code != 0 || !strings.Contains(stdout, "against the level since commit c4 (run "+g.ids["c4"][0]+") (the last change): no change") {
		t.Errorf("whole series: exit %d\n%s", code, stdout)
	}
	// The exit codes are documented in -help.
	if out, _, code := runBinary(t, "", "archive", "trend", "-help"); code != 0 || !strings.Contains(out, "Exit status:") || !strings.Contains(out, "3  -fail-on-regression: cannot tell") {
		t.Errorf("-help: exit %d\n%s", code, out)
	}
}
