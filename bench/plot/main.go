// Command plot measures loadlab's chart pipeline on synthetic runs: how fast
// results go through plot.Collector, how many points survive downsampling
// and how big the SVG and HTML get, next to the naive approach of drawing
// every result (same run, so the ratios hold on a noisy machine); and how
// long compare's bootstrap takes.
//
// Usage: go run ./bench/plot [-n 10000000] [-naive 200000]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/loadlab/loadlab/internal/compare"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
	"github.com/loadlab/loadlab/internal/results"
)

func main() {
	n := flag.Int("n", 10_000_000, "results in the big run")
	naive := flag.Int("naive", 200_000, "results in the run drawn both ways")
	flag.Parse()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tresults\tns/result\tcells\tpoints\tSVG bytes\tHTML bytes\theap MiB\t")
	row(tw, "generate only", *naive, modeGen)
	row(tw, "every result", *naive, modeEvery)
	for _, size := range []int{*naive, *n} {
		row(tw, "downsampled", size, modeDown)
	}
	tw.Flush()

	// compare: two runs of 1M results, 1000 resamples.
	a, b := compare.NewRun("a", metrics.FromDue), compare.NewRun("b", metrics.FromDue)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 1_000_000; i++ {
		a.Record(latency(rng, 1), true)
		b.Record(latency(rng, 1.05), true)
	}
	start := time.Now()
	rep := compare.Compare(a, []*compare.Run{b}, compare.Options{Seed: 1})
	fmt.Printf("\ncompare, 2 runs of 1M results, %d resamples: %v (p99 verdict: %s)\n",
		rep.Options.Resamples, time.Since(start).Round(time.Millisecond), rep.Rows[3].Verdict)
}

func latency(rng *rand.Rand, f float64) time.Duration {
	l := float64(2*time.Millisecond) * math.Exp(rng.NormFloat64()) * f
	if rng.IntN(10) == 0 {
		l = float64(300*time.Millisecond) + rng.Float64()*float64(200*time.Millisecond)
	}
	return time.Duration(l)
}

// row feeds size noisy results (1000 rps, 2% errors, bimodal latency) to a
// collector, or draws them all when every is set, and prints the sizes.
const (
	modeGen = iota
	modeEvery
	modeDown
)

func row(w io.Writer, name string, size int, mode int) {
	every := mode == modeEvery
	rng := rand.New(rand.NewPCG(7, 7))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := plot.NewCollector(0)
	var all []plot.Series
	if every {
		all = []plot.Series{{Name: "2xx", Kind: plot.Scatter}, {Name: "5xx", Kind: plot.Scatter}, {Name: "error", Kind: plot.Scatter}}
	}
	runtime.GC()
	start := time.Now()
	var r results.Result
	for i := 0; i < size; i++ {
		r = results.Result{Sent: t0.Add(time.Duration(i) * time.Millisecond), Latency: latency(rng, 1), Code: 200}
		if k := rng.IntN(100); k == 0 {
			r.Code = 503
		} else if k == 1 {
			r.Code = 0
		}
		if mode == modeGen {
			continue
		}
		if every {
			s := map[uint16]int{200: 0, 503: 1, 0: 2}[r.Code]
			all[s].Points = append(all[s].Points, plot.Point{X: float64(i) / 1000, Y: float64(r.Latency) / 1e6})
			continue
		}
		c.Add(&r)
	}
	perResult := float64(time.Since(start).Nanoseconds()) / float64(size)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var chart plot.Chart
	cells := "-"
	if mode == modeGen {
		fmt.Fprintf(w, "%s\t%d\t%.0f\t-\t-\t-\t-\t%d\t\n", name, size, perResult, ms.HeapAlloc>>20)
		return
	}
	if every {
		chart = plot.Chart{Title: "every result", X: plot.Axis{Label: "time (s)"}, Y: plot.Axis{Label: "latency (ms)"}, Series: all}
	} else {
		chart = plot.LatencyChart("downsampled", c.Axis(), c.Latency)
		cells = fmt.Sprint(c.Latency.Cells())
	}
	var svg, html bytes.Buffer
	_ = plot.WriteSVG(&svg, chart)
	_ = web.Write(&html, web.Page{Title: name, Sections: []web.Section{{Charts: []plot.Chart{chart}}}})
	fmt.Fprintf(w, "%s\t%d\t%.0f\t%s\t%d\t%d\t%d\t%d\t\n", name, size, perResult, cells, chart.NumPoints(), svg.Len(), html.Len(), ms.HeapAlloc>>20)
}
