// Command archive benchmarks the run archive: the rate `loadlab archive
// add` ingests a results file at (results per second: reading the stream
// and computing the report's figures is the cost), the stored size against
// the results file's, and how long List and Points take over 10,000 runs
// (the results site's index and trend pages read them).
//
//	go run ./bench/archive                 # 2M results, 10,000 runs, SQLite in a temporary folder
//	go run ./bench/archive -n 5000000 -runs 10000 -cpuprofile add.prof
//	go run ./bench/archive -pg             # the same on a throwaway Postgres (Debian's postgresql)
//	go run ./bench/archive -db postgres://user:pw@127.0.0.1:5432/bench  # on a Postgres of yours (an empty database)
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/bench/typical"
	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

func main() {
	n := flag.Int("n", 2_000_000, "results in the file whose add is timed")
	runs := flag.Int("runs", 10_000, "runs in the archive whose List and Points are timed")
	reps := flag.Int("reps", 20, "repetitions of each query (the median is printed)")
	dsn := flag.String("db", "", "archive to use (default: a SQLite file in the scratch folder); a Postgres database must be empty")
	pg := flag.Bool("pg", false, "start a throwaway Postgres (Debian's postgresql, as the tests do) and use it")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the add to `file`")
	queryprofile := flag.String("queryprofile", "", "write a CPU profile of the queries to `file`")
	flag.Parse()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loadlab-bench-archive")
	check(err)
	defer os.RemoveAll(dir)
	if *pg {
		srv, err := pgtest.Start()
		check(err)
		defer srv.Stop()
		*dsn, err = srv.CreateDB("bench")
		check(err)
	}
	if *dsn == "" {
		*dsn = filepath.Join(dir, "bench.db")
	}
	fmt.Printf("archive: %s\n", map[bool]string{true: "Postgres", false: "SQLite"}[archive.IsPostgres(*dsn)])
	st, err := sqlstore.Open(ctx, *dsn, true)
	check(err)
	defer st.Close()

	fmt.Printf("machine: %s\n\n", machine.Describe())

	// add
	path := filepath.Join(dir, "typical.lll")
	size, err := typical.WriteFile(path, results.FormatLoadlab, *n)
	check(err)
	fmt.Printf("Add one results file (%d typical results, %d bytes)\n\n", *n, size)
	fmt.Printf("%-24s %10s %14s\n", "phase", "seconds", "results/s")
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	cpu0 := machine.CPUTime()
	t0 := time.Now()
	bs, _, err := ingest.Bundles(ctx, []string{path}, ingest.Options{Name: "typical"})
	check(err)
	tIngest := time.Since(t0)
	t1 := time.Now()
	_, _, err = st.Add(ctx, bs[0])
	check(err)
	tStore := time.Since(t1)
	total := time.Since(t0)
	cpu := machine.CPUTime() - cpu0
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	fmt.Printf("%-24s %10.2f %14.0f\n", "read + figures (ingest)", tIngest.Seconds(), float64(*n)/tIngest.Seconds())
	fmt.Printf("%-24s %10.2f %14.0f\n", "hash + store (Add)", tStore.Seconds(), float64(*n)/tStore.Seconds())
	fmt.Printf("%-24s %10.2f %14.0f\n", "add, in all", total.Seconds(), float64(*n)/total.Seconds())
	fmt.Printf("%-24s %10.2f %14.0f   (CPU seconds of the process: the figure a loaded machine changes least)\n", "add, CPU time", cpu.Seconds(), float64(*n)/cpu.Seconds())
	if !archive.IsPostgres(*dsn) {
		check(st.Checkpoint(ctx))
		dbst, err := os.Stat(*dsn)
		check(err)
		fmt.Printf("\nStored size: database %d bytes for a %d-byte results file (%.3fx)\n", dbst.Size(), size, float64(dbst.Size())/float64(size))
	}

	// 10,000 runs
	t2 := time.Now()
	have := 1
	for i := 0; have < *runs; i++ {
		check2(st.Add(ctx, identified(synthetic(i))))
		have++
	}
	fmt.Printf("\n%d runs in the archive (%d synthetic small adds in %.1f s)\n\n", have, have-1, time.Since(t2).Seconds())
	fmt.Printf("%-52s %8s %12s\n", "query", "rows", "median ms")
	some := map[string]string{"team": "edge"}
	queries := []struct {
		name string
		f    func() int
	}{
		{"List: index page (newest 50, and the total)", func() int { r, _, err := st.List(ctx, archive.Filter{Limit: 50}); check(err); return len(r) }},
		{"List: page 100 (offset 4950)", func() int {
			r, _, err := st.List(ctx, archive.Filter{Limit: 50, Offset: 4950})
			check(err)
			return len(r)
		}},
		{"List: sorted by p99, 50", func() int {
			r, _, err := st.List(ctx, archive.Filter{Limit: 50, Sort: "p99"})
			check(err)
			return len(r)
		}},
		{"List: label team=edge, 50", func() int {
			r, _, err := st.List(ctx, archive.Filter{Limit: 50, Labels: some})
			check(err)
			return len(r)
		}},
		{"List: name contains \"search\", 50", func() int {
			r, _, err := st.List(ctx, archive.Filter{Limit: 50, Name: "search"})
			check(err)
			return len(r)
		}},
		{"List: every run", func() int { r, _, err := st.List(ctx, archive.Filter{}); check(err); return len(r) }},
		{"Points: every run (trend without -by filter)", func() int { p, err := st.Points(ctx, archive.Filter{Asc: true}, ""); check(err); return len(p) }},
		{"Points: label team=edge", func() int {
			p, err := st.Points(ctx, archive.Filter{Labels: some, Asc: true}, "")
			check(err)
			return len(p)
		}},
		{"Points: scenario page, label team=edge", func() int {
			p, err := st.Points(ctx, archive.Filter{Labels: some, Asc: true}, "page")
			check(err)
			return len(p)
		}},
		{"Get: one run with its steps", func() int { r, err := st.Get(ctx, bs0ID(ctx, st)); check(err); return len(r.Steps) }},
	}
	if *queryprofile != "" {
		f, err := os.Create(*queryprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	for _, q := range queries {
		var ds []time.Duration
		rows := 0
		for range *reps {
			t := time.Now()
			rows = q.f()
			ds = append(ds, time.Since(t))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Printf("%-52s %8d %12.2f\n", q.name, rows, float64(ds[len(ds)/2].Microseconds())/1000)
	}
}

var firstID string

func bs0ID(ctx context.Context, st *sqlstore.Store) string {
	if firstID == "" {
		r, _, err := st.List(ctx, archive.Filter{Limit: 1, Sort: "requests"})
		check(err)
		firstID = r[0].ID
	}
	return firstID
}

// synthetic is a small run of a team's history: one of 20 names, labels
// build/commit/team, two steps of two scenarios, a small file.
func synthetic(i int) *archive.Bundle {
	rng := rand.New(rand.NewPCG(uint64(i), 9))
	start := time.Unix(1_700_000_000, 0).Add(time.Duration(i) * 10 * time.Minute)
	p99 := time.Duration(20+rng.IntN(10)) * time.Millisecond
	fig := archive.Figures{Requests: 6000, Rate: 100, Throughput: 99.5, Success: 0.995,
		Latencies: metrics.LatencySummary{P50: p99 / 4, P90: p99 / 2, P95: p99 * 3 / 4, P99: p99, Max: 3 * p99, Mean: p99 / 3},
		Codes:     map[string]uint64{"200": 5970, "500": 30}}
	names := []string{"search", "checkout", "news", "home", "login"}
	teams := []string{"edge", "core", "web", "api"}
	b := &archive.Bundle{
		Run: archive.Run{Name: fmt.Sprintf("%s-%d", names[i%len(names)], i%4), Source: "run", Command: "loadlab run plan.yaml",
			Labels:  map[string]string{"build": start.Format("2006-01-02T15:04"), "commit": fmt.Sprintf("%08x", rng.Uint32()), "team": teams[i%len(teams)]},
			Started: start, Ended: start.Add(time.Minute), Figures: fig, Content: fmt.Sprintf("synthetic-%d", i)},
		Histograms: map[archive.StepKey][]byte{},
		Scenarios:  map[string]archive.Figures{"page": fig, "search": fig},
		Files: []archive.BundleFile{{Name: "steps.log", Open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(start.String() + " step 1/2 started\n")), nil
		}}},
	}
	for s := 0; s < 2; s++ {
		for _, sc := range []string{"page", "search"} {
			b.Run.Steps = append(b.Run.Steps, archive.Step{Index: s, Name: fmt.Sprintf("step %d", s+1), Scenario: sc, Started: start, Ended: start.Add(30 * time.Second),
				Figures: fig, Text: "Requests      [total, rate, throughput]  3000, 100.00, 99.50\n"})
			b.Histograms[archive.StepKey{Step: s, Scenario: sc}] = make([]byte, 300)
		}
	}
	return b
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
