// Command trend benchmarks `loadlab archive trend` at 10,000 runs: fetching
// the series from the archive, finding its change points, and checking a
// candidate against the runs' stored histograms, on a series with no
// change and on one with a +20% step.
//
//	go run ./bench/trend                  # 10,000 runs, SQLite in a temporary folder
//	go run ./bench/trend -runs 2000 -reps 5
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/changepoint"
	"github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/metrics"
)

func main() {
	runs := flag.Int("runs", 10_000, "runs of each series")
	perRun := flag.Int("requests", 1000, "requests recorded in each run's histogram")
	reps := flag.Int("reps", 11, "repetitions of each case (the median is printed)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the timed cases to `file`")
	flag.Parse()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loadlab-bench-trend")
	check(err)
	defer os.RemoveAll(dir)
	st, err := sqlstore.Open(ctx, filepath.Join(dir, "bench.db"), true)
	check(err)
	defer st.Close()
	fmt.Printf("machine: %s\n\n", machine.Describe())

	t0 := time.Now()
	for i := range *runs {
		check2(st.Add(ctx, identified(synthetic("flat", i, 10, *perRun))))
		p50 := 10.0
		if i >= *runs*7/10 {
			p50 = 12 // +20% from run 7000 on
		}
		check2(st.Add(ctx, identified(synthetic("step", i, p50, *perRun))))
	}
	fmt.Printf("2 series of %d runs added in %.1f s (each run: %d requests' histogram, labels series= and build=<n>)\n\n", *runs, time.Since(t0).Seconds(), *perRun)

	if *prof != "" {
		f, err := os.Create(*prof)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("%-58s %6s %8s %10s %8s\n", "case", "runs", "changes", "median ms", "CPU ms")
	for _, series := range []string{"flat", "step"} {
		f := archive.Filter{Labels: map[string]string{"series": series}, Sort: "started", Asc: true}
		var xs []float64
		measure(fmt.Sprintf("%s: series fetch (Points)", series), *reps, func() (int, int) {
			ps, err := st.Points(ctx, f, "")
			check(err)
			xs = xs[:0]
			for _, p := range ps {
				xs = append(xs, float64(p.Latencies.P95)/1e6)
			}
			return len(ps), 0
		})
		measure(fmt.Sprintf("%s: change points of the p95 series alone", series), *reps, func() (int, int) {
			return len(xs), len(changepoint.Detect(xs, changepoint.Options{Log: true}))
		})
		for _, m := range []trend.Metric{trend.P95, trend.Mean} {
			measure(fmt.Sprintf("%s: trend -by build -metric %s, in all", series, m), *reps, func() (int, int) {
				t, err := trend.Compute(ctx, st, trend.Options{Metric: m, By: "build", Labels: f.Labels})
				check(err)
				if series == "step" && (len(t.Changes) != 1 || t.Changes[0].Index != *runs*7/10) {
					fmt.Fprintf(os.Stderr, "bench: %s %s: changes %+v, want one at %d\n", series, m, t.Changes, *runs*7/10)
					os.Exit(1)
				}
				return len(t.Points), len(t.Changes)
			})
		}
	}
}

func measure(name string, reps int, f func() (rows, changes int)) {
	var ds, cs []time.Duration
	var rows, changes int
	for range reps {
		t, c := time.Now(), machine.CPUTime()
		rows, changes = f()
		ds = append(ds, time.Since(t))
		cs = append(cs, machine.CPUTime()-c)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	fmt.Printf("%-58s %6d %8d %10.1f %8.1f\n", name, rows, changes, ms(ds[len(ds)/2]), ms(cs[len(cs)/2]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// synthetic is run i of a series: n log-normal latencies around p50 ms
// (σ 0.3), its figures computed by package metrics from them.
func synthetic(series string, i int, p50 float64, n int) *archive.Bundle {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(len(series))))
	h := metrics.NewHistogram()
	for range n {
		d := time.Duration(p50 * math.Exp(0.3*rng.NormFloat64()) * float64(time.Millisecond))
		metrics.RecordLatency(h, d)
	}
	m := metrics.FromHistogram(h, uint64(n), uint64(n))
	l := m.Latencies
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	check(err)
	start := time.Unix(1_700_000_000, 0).Add(time.Duration(i) * 10 * time.Minute)
	fig := archive.Figures{Requests: uint64(n), Rate: 100, Throughput: 100, Success: 1,
		Latencies: l.LatencySummary}
	return &archive.Bundle{
		Run: archive.Run{Name: "page", Source: "results", Labels: map[string]string{"series": series, "build": fmt.Sprint(i + 1)},
			Started: start, Ended: start.Add(10 * time.Second), Figures: fig, Content: fmt.Sprintf("%s-%d", series, i),
			Steps: []archive.Step{{Index: 0, Scenario: "page", Started: start, Ended: start.Add(10 * time.Second), Figures: fig}}},
		Histograms: map[archive.StepKey][]byte{{Step: 0, Scenario: "page"}: enc},
		Files: []archive.BundleFile{{Name: "steps.log", Open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("step 1 started\n")), nil
		}}},
	}
}

func check2(_ string, _ bool, err error) { check(err) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// identified is b with its content hash, ID and slug filled, as
// archive add fills them before the store keeps a run.
func identified(b *archive.Bundle) *archive.Bundle {
	if err := b.Identify(); err != nil {
		panic(err)
	}
	return b
}
