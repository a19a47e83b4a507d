// Command report benchmarks the results files and the report: bytes per
// request of a typical run in each encoding, write and report speed, and
// the report's peak memory for 1M and 10M results (it must not grow with
// the number of results).
//
//	go run ./bench/report              # 1M typical results, then 1M vs 10M report RSS
//	go run ./bench/report -big 2000000 # a smaller "big" file on a busy machine
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
)

func main() {
	n := flag.Int("n", 1_000_000, "results in the typical run used for bytes per request")
	big := flag.Int("big", 10_000_000, "results in the big file whose report's peak RSS is measured")
	child := flag.String("report-child", "", "internal: report this file and exit")
	dir := flag.String("dir", "", "scratch directory (default: a new temporary one, removed at the end)")
	flag.Parse()
	if *child != "" {
		if err := reportFile(*child); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "loadlab-bench-report")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}

	fmt.Printf("Results encodings, typical paced run (%d results: 1000/s, 5%% 500s, 2 targets, bodies discarded)\n\n", *n)
	fmt.Printf("%-10s %14s %12s %12s %10s\n", "encoding", "bytes", "B/request", "vs loadlab", "write s")
	var llBytes int64
	for _, f := range []results.Format{results.FormatLoadlab, results.FormatGob, results.FormatCSV, results.FormatJSON} {
		path := filepath.Join(*dir, "typical."+string(f))
		t0 := time.Now()
		size := write(path, f, *n)
		el := time.Since(t0)
		if f == results.FormatLoadlab {
			llBytes = size
		}
		fmt.Printf("%-10s %14d %12.2f %11.1fx %10.2f\n", f, size, float64(size)/float64(*n), float64(size)/float64(llBytes), el.Seconds())
	}

	fmt.Printf("\nReport of a loadlab stream (text report, child process, peak RSS from rusage)\n\n")
	fmt.Printf("%-12s %12s %10s %14s %14s\n", "results", "file bytes", "report s", "ns/result", "peak RSS MiB")
	for _, count := range []int{*n, *big} {
		path := filepath.Join(*dir, "typical.loadlab")
		if count != *n {
			path = filepath.Join(*dir, "big.loadlab")
			write(path, results.FormatLoadlab, count)
		}
		st, err := os.Stat(path)
		check(err)
		t0 := time.Now()
		cmd := exec.Command(os.Args[0], "-report-child", path)
		cmd.Stderr = os.Stderr
		check(cmd.Run())
		el := time.Since(t0)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // kB on Linux
		fmt.Printf("%-12d %12d %10.2f %14.0f %14.1f\n", count, st.Size(), el.Seconds(), float64(el.Nanoseconds())/float64(count), float64(rss)/1024)
	}
}

// typical makes result i of a paced attack at 1000/s.
func typical(rng *rand.Rand, start time.Time, i int, r *results.Result) {
	due := start.Add(time.Duration(i) * time.Millisecond)
	*r = results.Result{
		Attack: "search", Seq: uint64(i), Due: due,
		Sent:    due.Add(time.Duration(20_000 + rng.IntN(60_000))),
		Latency: 5*time.Millisecond + time.Duration(rng.IntN(20_000_000)),
		Code:    200, BytesIn: 1024, Method: "GET", URL: "http://127.0.0.1:8080/search?q={{rand.letters 50}}",
	}
	if rng.IntN(20) == 0 {
		r.Code, r.Error, r.BytesIn = 500, "500 Internal Server Error", 21
	}
	if i%10 == 3 {
		r.URL = "http://127.0.0.1:8080/news"
	}
}

func write(path string, f results.Format, n int) int64 {
	out, err := os.Create(path)
	check(err)
	bw := bufio.NewWriterSize(out, 1<<20)
	var enc results.Encoder
	finish := func() error { return nil }
	switch f {
	case results.FormatLoadlab:
		w, err := results.NewWriter(bw, results.Meta{Generator: "bench"})
		check(err)
		enc, finish = w, w.Close
	case results.FormatGob:
		enc = results.NewGobEncoder(bw)
	case results.FormatCSV:
		e := results.NewCSVEncoder(bw)
		enc, finish = e, e.Flush
	case results.FormatJSON:
		enc = results.NewJSONEncoder(bw)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Unix(1_795_296_174, 0)
	var r results.Result
	for i := 0; i < n; i++ {
		typical(rng, start, i, &r)
		check(enc.Encode(&r))
	}
	check(finish())
	check(bw.Flush())
	st, err := out.Stat()
	check(err)
	check(out.Close())
	return st.Size()
}

func reportFile(path string) error {
	src, err := results.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	m := report.NewMerge(report.Input{Name: path, Dec: src})
	_, err = report.Run(io.Discard, m, report.Options{Kind: report.KindText})
	if err == nil && len(m.Warnings) > 0 {
		err = fmt.Errorf("%s", m.Warnings[0])
	}
	return err
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
