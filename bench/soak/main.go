// Command soak runs origin + proxy + three attacks, all real loadlab
// processes on loopback, at a steady mixed load for a long time, samples
// every process's memory, open files, threads and (where it exports them)
// goroutines, and fails when any of them keeps growing after warm-up.
//
// The load: unique /search URLs through an overflow pool with churn (a dial
// and a close per overflow worker) to an origin that resets 1% and hangs 1%
// of its answers (the proxy's request timeout ends the hangs), a /flaky
// route whose origin fails for 10 s of every minute so that its circuit
// breaker opens and recovers, and a non-keep-alive attack straight at the
// origin (a connection per request).
//
//	go run ./bench/soak                  # 60 minutes, samples every 10 s
//	go run ./bench/soak -duration 3m     # what CI runs
//
// It prints a table (start, end, max per process and resource, and the
// growth judged) and exits 1 when a bound is crossed, 2 on a setup error.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/bench/labproc"
)

func main() {
	duration := flag.Duration("duration", time.Hour, "how long the load runs")
	interval := flag.Duration("interval", 10*time.Second, "sampling interval")
	warmup := flag.Duration("warmup", 0, "samples before this are not judged (default: a fifth of -duration, at most 5m)")
	bin := flag.String("bin", "", "loadlab binary to run (default: build ./cmd/loadlab)")
	keep := flag.String("keep", "", "keep the results, logs and samples in this `folder`")
	flag.Parse()
	if *duration < 30*time.Second || *interval <= 0 || *interval > *duration/3 {
		fmt.Fprintln(os.Stderr, "soak: want -duration of 30s or more and -interval at most a third of it")
		os.Exit(2)
	}
	if *warmup <= 0 {
		*warmup = min(*duration/5, 5*time.Minute)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "loadlab-soak-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(2)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if *bin == "" {
		var err error
		if *bin, err = labproc.Build(dir); err != nil {
			fmt.Fprintln(os.Stderr, "soak: building loadlab:", err)
			os.Exit(2)
		}
	}
	lab, err := startLab(ctx, *bin, dir, *duration)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	defer lab.stop()
	fmt.Printf("soak: %v of mixed load, samples every %v, judged after %v of warm-up (%s)\n", *duration, *interval, *warmup, time.Now().UTC().Format(time.RFC3339))
	series := lab.run(ctx, *duration, *interval)
	verdicts := judge(series, *warmup)
	printTable(os.Stdout, series, verdicts)
	if err := lab.checkBreaker(ctx); err != nil {
		fmt.Println("soak: FAIL:", err)
		os.Exit(1)
	}
	if err := lab.checkAccounting(ctx); err != nil {
		fmt.Println("soak: FAIL:", err)
		os.Exit(1)
	}
	failed := false
	for _, v := range verdicts {
		if !v.ok {
			failed = true
			fmt.Printf("soak: FAIL: %s %s grew from %s to %s after warm-up (bound %s)\n", v.proc, v.resource, v.fmt(v.from), v.fmt(v.to), v.bound)
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Println("soak: every resource flat after warm-up; every scheduled request accounted for")
}
