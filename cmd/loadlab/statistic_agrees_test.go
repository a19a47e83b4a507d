package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
)

// agreeRequests are the requests of each run the tests of agreement
// write: 10 s at 200/s, five time blocks, more than compare's block
// bootstrap needs (verdict.MinBlocks); every command reads every block,
// and under the race detector each costs, so no more.
const agreeRequests = 2000

// writeRun writes a loadlab stream of n results at 200/s whose generator
// fell behind now and then (so latencies from the due time and from the
// send time differ), with a few dropped requests.
func writeRun(t *testing.T, path string, seed uint64, n int, slow float64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, results.Meta{Attack: "search"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Unix(1_795_296_179, 0)
	for i := range n {
		due := start.Add(time.Duration(i) * 5 * time.Millisecond)
		r := results.Result{Attack: "search", Seq: uint64(i), Due: due, Sent: due.Add(time.Duration(rng.IntN(200)) * time.Microsecond),
			Latency: time.Duration(float64(8*time.Millisecond) * math.Exp(0.5*rng.NormFloat64()) * slow),
			Code:    200, Method: "GET", URL: "http://127.0.0.1:8080/search"}
		if rng.IntN(20) == 0 {
			r.Sent = due.Add(time.Duration(10+rng.IntN(40)) * time.Millisecond) // a stall
		}
		if rng.IntN(200) == 0 {
			r.Sent, r.Latency, r.Code, r.Error = due, 0, 0, results.DroppedPrefix+"max-workers reached"
		}
		if err := w.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSameStatisticInEveryCommand: the same statistic of the same file is the same number in
// report, plot, compare and a CSV handed to vegeta, on either latency
// basis, and the two bases differ on this file (so the check means
// something).
func TestSameStatisticInEveryCommand(t *testing.T) {
	t.Parallel() // reads and writes only files of its own
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lll"), filepath.Join(dir, "b.lll")
	writeRun(t, a, 1, agreeRequests, 1)
	writeRun(t, b, 2, agreeRequests, 1.1)
	p99 := map[string]time.Duration{}
	for _, basis := range []string{"due", "send"} {
		t.Run(basis, func(t *testing.T) {
			reportP99 := func(args ...string) time.Duration {
				t.Helper()
				code, out, errs := runCLI(t, nil, append([]string{"report", "-type", "json"}, args...)...)
				if code != 0 {
					t.Fatalf("report %v: exit %d: %s", args, code, errs)
				}
				var j struct {
					Latencies struct {
						P99 time.Duration `json:"99th"`
					} `json:"latencies"`
					Basis string `json:"latency_basis"`
				}
				if err := json.Unmarshal([]byte(out), &j); err != nil {
					t.Fatal(err)
				}
				return j.Latencies.P99
			}
			ra, rb := reportP99("-basis", basis, a), reportP99("-basis", basis, b)
			p99[basis] = ra

			// plot states each file's p99 as report prints it
			html := filepath.Join(dir, "plot-"+basis+".html")
			if code, _, errs := runCLI(t, nil, "plot", "-basis", basis, "-output", html, a); code != 0 {
				t.Fatalf("plot: exit %d: %s", code, errs)
			}
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			if want := "p99 " + report.Round(ra).String(); !strings.Contains(string(page), want) {
				t.Errorf("plot page lacks %q (report's p99)", want)
			}

			// compare's baseline and run p99 are the reports' (to the 4
			// significant digits it prints)
			code, out, errs := runCLI(t, nil, "compare", "-basis", basis, "-resamples", "50", "-format", "markdown", a, b)
			if code != 0 {
				t.Fatalf("compare: exit %d: %s", code, errs)
			}
			var row []string
			for _, l := range strings.Split(out, "\n") {
				if c := strings.Split(l, " | "); len(c) > 3 && c[1] == "p99" {
					row = c
				}
			}
			if row == nil {
				t.Fatalf("no p99 row in\n%s", out)
			}
			for i, want := range []time.Duration{ra, rb} {
				got, err := time.ParseDuration(row[2+i])
				if err != nil || math.Abs(float64(got-want)) > float64(want)*5e-4 {
					t.Errorf("compare p99 %q, report's %v", row[2+i], want)
				}
			}

			// the CSV handed to vegeta carries the same latencies: read
			// back (it has one time per result) it reports the same p99
			csv := filepath.Join(dir, "a-"+basis+".csv")
			if code, _, errs := runCLI(t, nil, "encode", "-to", "csv", "-basis", basis, "-output", csv, a); code != 0 {
				t.Fatalf("encode: exit %d: %s", code, errs)
			}
			if got := reportP99(csv); got != ra {
				t.Errorf("p99 of the CSV %v, of the stream %v", got, ra)
			}
		})
	}
	if p99["due"] <= p99["send"] {
		t.Fatalf("p99 from the due time %v, from the send time %v: the file should make them differ", p99["due"], p99["send"])
	}
}

// splitRun deals the results of the stream at path into n shard files of
// one split attack, as `loadlab attack -shard i/n` would have written them
// (each global sequence number to the shard the segment deals it to, with
// the shard record in the header), and returns their paths.
func splitRun(t *testing.T, path string, n int) []string {
	t.Helper()
	src, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var all []results.Result
	var r results.Result
	for src.Decode(&r) == nil {
		all = append(all, r)
	}
	var out []string
	for i := 1; i <= n; i++ {
		seg, err := segment.Shard(i, n)
		if err != nil {
			t.Fatal(err)
		}
		p := strings.TrimSuffix(path, ".lll") + fmt.Sprintf("-shard-%d-of-%d.lll", i, n)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w, err := results.NewWriter(f, results.Meta{Attack: "search", Shard: &results.Shard{Segment: seg.String(),
			Sequence: seg.SequenceString(), Schedule: "200/s for 20s", StartAt: all[0].Due, Host: fmt.Sprint("gen", i)}})
		if err != nil {
			t.Fatal(err)
		}
		for k := range all {
			if seg.Has(all[k].Seq) {
				if err := w.Encode(&all[k]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out = append(out, p)
	}
	return out
}

// TestSameStatisticFromShardFiles: the shard files of a split attack are one run with
// the numbers of the whole attack, in report, plot and compare alike, on
// either latency basis: the run is dealt into three shard files (written
// here, as the attacks of TestShardSetIsOneRun would have), and every
// command reads them as the one file they came from.
func TestSameStatisticFromShardFiles(t *testing.T) {
	t.Parallel() // reads and writes only files of its own
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lll"), filepath.Join(dir, "b.lll")
	writeRun(t, a, 1, agreeRequests, 1)
	writeRun(t, b, 2, agreeRequests, 1.1)
	as, bs := splitRun(t, a, 3), splitRun(t, b, 3)
	for _, basis := range []string{"due", "send"} {
		t.Run(basis, func(t *testing.T) {
			reportOf := func(args ...string) (p99 time.Duration, requests int) {
				t.Helper()
				code, out, errs := runCLI(t, nil, append([]string{"report", "-type", "json", "-basis", basis}, args...)...)
				if code != 0 {
					t.Fatalf("report %v: exit %d: %s", args, code, errs)
				}
				var j struct {
					Requests  int `json:"requests"`
					Latencies struct {
						P99 time.Duration `json:"99th"`
					} `json:"latencies"`
				}
				if err := json.Unmarshal([]byte(out), &j); err != nil {
					t.Fatal(err)
				}
				return j.Latencies.P99, j.Requests
			}
			ra, na := reportOf(a)
			rs, ns := reportOf(as...)
			rb, _ := reportOf(b)
			if rs != ra || ns != na || na != agreeRequests {
				t.Fatalf("report of the shards: p99 %v of %d requests, of the whole file %v of %d", rs, ns, ra, na)
			}

			// plot of the shards states the whole file's p99, for one run
			html := filepath.Join(dir, "plot-"+basis+".html")
			if code, _, errs := runCLI(t, nil, append([]string{"plot", "-basis", basis, "-output", html}, as...)...); code != 0 {
				t.Fatalf("plot: exit %d: %s", code, errs)
			}
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			if want := "a-shard-*-of-3.lll: p50 "; !strings.Contains(string(page), want) || strings.Count(string(page), ": p50 ") != 1 {
				t.Errorf("plot page does not state one run %q", want)
			}
			if want := "p99 " + report.Round(ra).String(); !strings.Contains(string(page), want) {
				t.Errorf("plot page lacks %q (report's p99)", want)
			}

			// compare: the shard set of a against that of b, and against the
			// whole file b, print the reports' p99s
			for _, args := range [][]string{append(append([]string{}, as...), b), {"-run", "a=" + strings.Join(as, ","), "-run", "b=" + strings.Join(bs, ",")}} {
				code, out, errs := runCLI(t, nil, append([]string{"compare", "-basis", basis, "-resamples", "50", "-format", "markdown"}, args...)...)
				if code != 0 {
					t.Fatalf("compare %v: exit %d: %s", args, code, errs)
				}
				var row []string
				for _, l := range strings.Split(out, "\n") {
					if c := strings.Split(l, " | "); len(c) > 3 && c[1] == "p99" {
						row = c
					}
				}
				if row == nil || !strings.Contains(out, fmt.Sprintf(" %d (3 files), ", agreeRequests)) {
					t.Fatalf("compare %v: no p99 row, or not %d requests from 3 files, in\n%s", args, agreeRequests, out)
				}
				for i, want := range []time.Duration{ra, rb} {
					got, err := time.ParseDuration(row[2+i])
					if err != nil || math.Abs(float64(got-want)) > float64(want)*5e-4 {
						t.Errorf("compare %v: p99 %q, report's %v", args, row[2+i], want)
					}
				}
			}
		})
	}
}
