// Command merge benchmarks the report of a split attack: it writes the
// shard files of one attack (default 4 shards of 10M results each, a
// 40,000/s global schedule striped over the shards as the attack stripes
// it), then runs `loadlab report` of all of them in a child process and
// prints the wall time, results per second and peak RSS (the merge must
// hold memory bounded whatever the number of results).
//
//	go run ./bench/merge                 # 4 x 10M
//	go run ./bench/merge -n 2000000      # 4 x 2M on a busy machine
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/results"
)

func main() {
	shards := flag.Int("shards", 4, "shard files")
	n := flag.Int("n", 10_000_000, "results per shard")
	rate := flag.Int("rate", 40_000, "global requests per second")
	bin := flag.String("loadlab", "bin/loadlab", "the loadlab binary to time")
	dir := flag.String("dir", "", "scratch directory (default: a new temporary one, removed at the end)")
	keep := flag.Bool("keep", false, "keep the files (with -dir) for another run")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "loadlab-bench-merge")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	var files []string
	var bytes int64
	t0 := time.Now()
	for i := 0; i < *shards; i++ {
		path := filepath.Join(*dir, fmt.Sprintf("shard-%d-of-%d.lll", i+1, *shards))
		files = append(files, path)
		if st, err := os.Stat(path); err == nil && *keep {
			bytes += st.Size()
			continue
		}
		bytes += writeShard(path, i, *shards, *n, *rate)
	}
	fmt.Printf("wrote %d shard files of %d results (%.1f MB, %.2f B/result) in %.1f s\n\n", *shards, *n, float64(bytes)/1e6,
		float64(bytes)/float64(*shards**n), time.Since(t0).Seconds())

	total := *shards * *n
	fmt.Printf("%-8s %12s %10s %14s %14s\n", "shards", "results", "report s", "results/s", "peak RSS MiB")
	for _, k := range []int{1, *shards} {
		start := time.Now()
		cmd := exec.Command(*bin, append([]string{"report"}, files[:k]...)...)
		out, err := cmd.Output()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s report: %v\n", *bin, err)
			os.Exit(1)
		}
		el := time.Since(start)
		rss := machine.MaxRSS(cmd.ProcessState)
		count := k * *n
		fmt.Printf("%-8d %12d %10.2f %14.0f %14.1f\n", k, count, el.Seconds(), float64(count)/el.Seconds(), float64(rss)/1024)
		if k == *shards {
			want := fmt.Sprintf("%d, %d, 0 (every scheduled request recorded once)", total, total)
			if !strings.Contains(string(out), want) {
				fmt.Fprintf(os.Stderr, "the merged report lacks %q:\n%s", want, out)
				os.Exit(1)
			}
		}
	}
}

// writeShard writes shard i of n: the global requests the segment owns,
// due on the global schedule, with a typical mix of answers.
func writeShard(path string, i, shards, n, rate int) int64 {
	seg, err := segment.Shard(i+1, shards)
	check(err)
	start := time.Unix(1_795_296_174, 0).UTC()
	f, err := os.Create(path)
	check(err)
	bw := bufio.NewWriterSize(f, 1<<20)
	sched := fmt.Sprintf("%d/s for %s", rate, time.Duration(shards*n/rate)*time.Second)
	w, err := results.NewWriter(bw, results.Meta{Generator: "bench", Shard: &results.Shard{Segment: seg.String(), Sequence: seg.SequenceString(),
		Schedule: sched, StartAt: start, Host: fmt.Sprintf("gen%d", i+1)}})
	check(err)
	rng := rand.New(rand.NewPCG(uint64(i), 2))
	step := time.Second / time.Duration(rate)
	var r results.Result
	for k := 0; k < n; k++ {
		seq := seg.Nth(uint64(k))
		due := start.Add(time.Duration(seq) * step)
		r = results.Result{Attack: "search", Seq: seq, Due: due, Sent: due.Add(time.Duration(20_000 + rng.IntN(60_000))),
			Latency: 5*time.Millisecond + time.Duration(rng.IntN(20_000_000)), Code: 200, BytesIn: 1024, Method: "GET",
			URL: "http://127.0.0.1:8080/search?q={{rand.letters 50}}"}
		if rng.IntN(20) == 0 {
			r.Code, r.Error, r.BytesIn = 500, "500 Internal Server Error", 21
		}
		check(w.Encode(&r))
	}
	check(w.Close())
	check(bw.Flush())
	st, err := f.Stat()
	check(err)
	check(f.Close())
	return st.Size()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
