package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// shardSetRuns is what TestShardSetIsOneRun reads: one schedule run split
// over three generators, the same schedule run on one, and a shard of an
// unrelated attack, all real attacks against a loopback server.
type shardSetRuns struct {
	shards []string // shard1.lll .. shard3.lll
	whole  string   // the single-machine run
	other  string   // a shard of another attack
}

// runShardSet runs the attacks of shardSetRuns. The server answers by the
// global sequence number the target carries, so both runs get the same
// answers: every 7th request a 500, every 10th one slow. -catch-up 1m
// sends what a stall of the (shared, busy) test machine delays, late,
// instead of dropping it, so both runs hold every request.
func runShardSet(t *testing.T, dir string) shardSetRuns {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seq, _ := strconv.Atoi(r.URL.Query().Get("seq"))
		if seq%10 == 0 {
			time.Sleep(15 * time.Millisecond)
		}
		if seq%7 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	target := []byte("GET " + srv.URL + "/x?seq={{seq}}\n")
	start := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	runs := shardSetRuns{whole: filepath.Join(dir, "whole.lll"), other: filepath.Join(dir, "other.lll")}
	var wg sync.WaitGroup
	attack := func(out string, args ...string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args = append([]string{"attack", "-quiet", "-rate", "100/s", "-duration", "2s", "-catch-up", "1m", "-output", out}, args...)
			if code, _, stderr := runCLI(t, target, args...); code != 0 {
				t.Errorf("%s: exit %d: %s", out, code, stderr)
			}
		}()
	}
	for i := 1; i <= 3; i++ {
		f := filepath.Join(dir, fmt.Sprintf("shard%d.lll", i))
		runs.shards = append(runs.shards, f)
		attack(f, "-shard", fmt.Sprintf("%d/3", i), "-start-at", start)
	}
	attack(runs.whole, "-start-at", start)
	wg.Wait()
	if code, _, stderr := runCLI(t, target, "attack", "-quiet", "-shard", "2/3", "-rate", "50/s", "-duration", "200ms", "-output", runs.other); code != 0 {
		t.Fatalf("other attack: exit %d: %s", code, stderr)
	}
	if t.Failed() {
		t.FailNow()
	}
	return runs
}

// plotChart is one chart of a page `loadlab plot` wrote.
type plotChart struct {
	Title  string
	XMin   *float64
	Series []struct{ Name string }
	Data   [][]*float64
}

// readPlot runs `loadlab plot args...` into a page and returns its charts.
func readPlot(t *testing.T, out string, args ...string) []plotChart {
	t.Helper()
	if code, _, stderr := runCLI(t, nil, append([]string{"plot", "-output", out}, args...)...); code != 0 {
		t.Fatalf("plot %v: exit %d: %s", args, code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	const mark = "window.LOADLAB_CHARTS = "
	i := strings.Index(html, mark)
	j := strings.Index(html[i:], ";</script>")
	if i < 0 || j < 0 {
		t.Fatalf("%s: no chart data", out)
	}
	var charts []plotChart
	if err := json.Unmarshal([]byte(html[i+len(mark):i+j]), &charts); err != nil {
		t.Fatal(err)
	}
	return charts[:4] // latency, throughput, status codes, percentiles
}

// names lists a chart's series.
func (c plotChart) names() []string {
	var out []string
	for _, s := range c.Series {
		out = append(out, s.Name)
	}
	return out
}

// totals adds up each step series of a per-second chart (one-second bins,
// the last point repeating the last bin): the requests it counts.
func (c plotChart) totals() map[string]int {
	out := map[string]int{}
	for k, s := range c.Series {
		ys := c.Data[k+1]
		var sum float64
		for _, y := range ys[:len(ys)-1] {
			if y != nil {
				sum += *y
			}
		}
		out[s.Name] = int(math.Round(sum))
	}
	return out
}

// TestShardSetIsOneRun: the shard files of one real split attack are one
// run in plot and compare, as in report: the same requests per series as
// the single-machine run of the same schedule, the same percentiles as
// report prints for the files, and shards of different attacks refused
// with report's line unless -force.
func TestShardSetIsOneRun(t *testing.T) {
	dir := t.TempDir()
	runs := runShardSet(t, dir)
	s := runs.shards

	t.Run("plot", func(t *testing.T) {
		shards := readPlot(t, filepath.Join(dir, "shards.html"), s...)
		whole := readPlot(t, filepath.Join(dir, "whole.html"), runs.whole)
		for k := range 4 {
			if got, want := strings.Join(shards[k].names(), ","), strings.Join(whole[k].names(), ","); got != want && k != 3 {
				t.Errorf("%s: series %s, the single machine's %s", shards[k].Title, got, want)
			}
		}
		for _, k := range []int{1, 2} {
			got, want := shards[k].totals(), whole[k].totals()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: requests per series %v, the single machine's %v", shards[k].Title, got, want)
			}
		}
		if tot := shards[1].totals(); tot["sent/s"] != 200 || shards[2].totals()["500"] != 29 {
			t.Errorf("the shards sent %v, answered %v; want 200 sent, 29 500s", tot, shards[2].totals())
		}
		if p := shards[3].names(); len(p) != 1 || p[0] != "shard*.lll" {
			t.Errorf("percentile lines %q, want one run, shard*.lll", p)
		}
		// The time axis starts at the attack's start instant: the first
		// one-second bin is there.
		if x := shards[1].Data[0][0]; x == nil || *x != 0 || shards[1].XMin == nil || *shards[1].XMin != 0 {
			t.Errorf("throughput starts at %v (axis from %v), want 0", x, shards[1].XMin)
		}

		byShard := readPlot(t, filepath.Join(dir, "by-shard.html"), append([]string{"-by-shard"}, s...)...)
		if p := strings.Join(byShard[3].names(), ","); p != "shard1.lll,shard2.lll,shard3.lll" {
			t.Errorf("-by-shard percentile lines %q", p)
		}
		if l := strings.Join(byShard[0].names(), ","); !strings.Contains(l, "shard1.lll 2xx") || !strings.Contains(l, "shard3.lll 5xx") {
			t.Errorf("-by-shard latency series %q", l)
		}
		if byShard[1].totals()["sent/s"] != 200 {
			t.Errorf("-by-shard sent %v", byShard[1].totals())
		}

		// Shard files and an unrelated run: two runs.
		mixed := readPlot(t, filepath.Join(dir, "mixed.html"), append([]string{runs.whole}, s...)...)
		if p := strings.Join(mixed[3].names(), ","); p != "whole.lll,shard*.lll" {
			t.Errorf("mixed percentile lines %q", p)
		}
		if mixed[1].totals()["sent/s"] != 400 {
			t.Errorf("mixed sent %v", mixed[1].totals())
		}
		named := readPlot(t, filepath.Join(dir, "named.html"), "-run", "split="+filepath.Join(dir, "shard*.lll"), runs.whole)
		if p := strings.Join(named[3].names(), ","); p != "split,whole.lll" {
			t.Errorf("-run percentile lines %q", p)
		}
	})

	t.Run("compare", func(t *testing.T) {
		// report's figures for the shard files and for the single machine
		reportOf := func(files ...string) map[string]time.Duration {
			code, out, stderr := runCLI(t, nil, append([]string{"report", "-type", "json"}, files...)...)
			if code != 0 {
				t.Fatalf("report: exit %d: %s", code, stderr)
			}
			var j struct {
				Requests  int64
				Latencies struct {
					Mean time.Duration `json:"mean"`
					P50  time.Duration `json:"50th"`
					P90  time.Duration `json:"90th"`
					P99  time.Duration `json:"99th"`
				}
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatal(err)
			}
			return map[string]time.Duration{"requests": time.Duration(j.Requests), "mean": j.Latencies.Mean,
				"p50": j.Latencies.P50, "p90": j.Latencies.P90, "p99": j.Latencies.P99}
		}
		wholeRep, shardRep := reportOf(runs.whole), reportOf(s...)
		if wholeRep["requests"] != 200 || shardRep["requests"] != 200 {
			t.Fatalf("report: %v requests on one machine, %v in the shards", wholeRep["requests"], shardRep["requests"])
		}
		for _, args := range [][]string{
			append([]string{runs.whole}, s...),                                                    // grouped by attack
			{"-run", "whole=" + runs.whole, "-run", "shards=" + filepath.Join(dir, "shard*.lll")}, // named, a pattern
		} {
			code, out, stderr := runCLI(t, nil, append([]string{"compare", "-resamples", "50", "-format", "markdown"}, args...)...)
			if code != 0 {
				t.Fatalf("compare %v: exit %d: %s", args, code, stderr)
			}
			name := "shard*.lll"
			if args[0] == "-run" {
				name = "shards"
			}
			if want := "Requests: whole" + map[bool]string{true: "", false: ".lll"}[args[0] == "-run"] + " 200, " + name + " 200 (3 files)"; !strings.Contains(out, want) {
				t.Errorf("compare lacks %q:\n%s", want, out)
			}
			rows := map[string][]string{}
			for _, l := range strings.Split(out, "\n") {
				if c := strings.Split(l, " | "); len(c) > 3 {
					rows[c[1]] = c
				}
			}
			for _, stat := range []string{"mean", "p50", "p90", "p99"} {
				row := rows[stat]
				if row == nil {
					t.Fatalf("no %s row in\n%s", stat, out)
				}
				for i, want := range []time.Duration{wholeRep[stat], shardRep[stat]} {
					got, err := time.ParseDuration(row[2+i])
					if err != nil || math.Abs(float64(got-want)) > float64(want)*5e-4 {
						t.Errorf("compare %v: %s %q, report's %v", args, stat, row[2+i], want)
					}
				}
			}
		}
		// A fleet's -out folder is one run.
		fleet := filepath.Join(dir, "run-7")
		if err := os.Mkdir(fleet, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range s {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(fleet, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, out, stderr := runCLI(t, nil, "compare", "-resamples", "50", fleet, runs.whole)
		if code != 0 || !strings.Contains(out, "Baseline: run-7\nRequests: run-7 200 (3 files), whole.lll 200") {
			t.Errorf("compare of a fleet folder: exit %d: %s\n%s", code, stderr, out)
		}
	})

	t.Run("different attacks", func(t *testing.T) {
		_, _, want := runCLI(t, nil, "report", s[0], runs.other)
		want = strings.TrimPrefix(want, "loadlab report: ")
		if !strings.Contains(want, "shard1.lll and "+runs.other+" are shards of different attacks") {
			t.Fatalf("report's refusal: %q", want)
		}
		for _, args := range [][]string{
			{"plot", "-output", filepath.Join(dir, "x.html"), s[0], runs.other},
			{"plot", "-output", filepath.Join(dir, "x.html"), "-run", "x=" + s[0] + "," + runs.other},
			{"compare", runs.whole, s[0], runs.other},
			{"compare", "-run", "x=" + s[0] + "," + runs.other, runs.whole},
		} {
			code, _, stderr := runCLI(t, nil, args...)
			if got := strings.TrimPrefix(stderr, "loadlab "+args[0]+": "); code != 2 || got != want {
				t.Errorf("%v: exit %d, %q; want exit 2 and report's %q", args, code, stderr, want)
			}
			code, _, stderr = runCLI(t, nil, append([]string{args[0], "-force"}, args[1:]...)...)
			if code != 0 {
				t.Errorf("%v -force: exit %d: %s", args, code, stderr)
			}
		}
		// -force: one run, as report merges them.
		forced := readPlot(t, filepath.Join(dir, "forced.html"), "-force", s[0], runs.other)
		if p := forced[3].names(); len(p) != 1 {
			t.Errorf("forced plot: percentile lines %q, want one run", p)
		}
	})
}
