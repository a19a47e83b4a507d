// Command report benchmarks the results files and the report: bytes per
// request of a typical run in each encoding, write and report speed, and
// the report's peak memory for 1M and 10M results (it must not grow with
// the number of results).
//
//	go run ./bench/report              # 1M typical results, then 1M vs 10M report RSS
//	go run ./bench/report -big 2000000 # a smaller "big" file on a busy machine
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/bench/typical"
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
		size, err := typical.WriteFile(path, f, *n)
		check(err)
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
			_, err := typical.WriteFile(path, results.FormatLoadlab, count)
			check(err)
		}
		st, err := os.Stat(path)
		check(err)
		t0 := time.Now()
		cmd := exec.Command(os.Args[0], "-report-child", path)
		cmd.Stderr = os.Stderr
		check(cmd.Run())
		el := time.Since(t0)
		rss := machine.MaxRSS(cmd.ProcessState) // kB
		fmt.Printf("%-12d %12d %10.2f %14.0f %14.1f\n", count, st.Size(), el.Seconds(), float64(el.Nanoseconds())/float64(count), float64(rss)/1024)
	}
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
