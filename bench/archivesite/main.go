// Command archivesite benchmarks the archive's results site (`loadlab
// archive serve`): how long its pages take over a real SQLite archive of
// 10,000 runs, one of them of 1M results, served on loopback.
//
//	go run ./bench/archivesite                  # 10,000 runs, a run of 1M results
//	go run ./bench/archivesite -runs 2000 -big 200000 -n 5
//
// The big run is a results file of -big results (1000/s, log-normal
// latencies around 20 ms, 5% 500s) added by the real ingest, as `loadlab
// archive add` adds it. The other runs are copies of a real 1000-result
// run with their own name, labels (build=00001..., team=a|b|c|d), start
// time and a latency that drifts, stepping up by 30% at build 5000 (so the
// trend has a change to find). Each page is fetched -n times; the table
// gives the median and the slowest, and the first (cold) fetch where it
// differs, and the CPU time a fetch took (the machine's load inflates wall
// times, not CPU time). The trend page computes its change points once per archive
// state, in the background: the time that takes is printed apart, the
// page's figures are those of the pages served once it is done.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/archive/site"
	_ "github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/results"
)

func main() {
	runs := flag.Int("runs", 10_000, "runs in the archive")
	big := flag.Int("big", 1_000_000, "results of the big run")
	n := flag.Int("n", 20, "fetches of each page")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed fetches of the pages named by -profile-page to this `file`")
	profPage := flag.String("profile-page", "trend", "the pages whose timed fetches are profiled: their name contains this `text`")
	dir := flag.String("dir", "", "scratch directory (default: a new temporary one, removed at the end)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "loadlab-bench-archivesite")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(*dir, "runs.db"))
	check(err)
	defer store.Close()

	// The template of the small runs: a real run of 1000 results.
	small := filepath.Join(*dir, "small.lll")
	write(small, 1000, 1)
	bs, _, err := ingest.Bundles(ctx, []string{small}, ingest.Options{Name: "search"})
	check(err)
	tmpl := bs[0]
	raw, err := os.ReadFile(small)
	check(err)

	t0 := time.Now()
	var ids []string
	for i := 0; i < *runs-1; i++ {
		id, _, err := store.Add(ctx, identified(variant(tmpl, raw, i, *runs)))
		check(err)
		ids = append(ids, id)
	}
	addSmall := time.Since(t0)

	bigPath := filepath.Join(*dir, "big.lll")
	write(bigPath, *big, 2)
	t0 = time.Now()
	bs, _, err = ingest.Bundles(ctx, []string{bigPath}, ingest.Options{Name: "search-1m", Labels: map[string]string{"build": fmt.Sprintf("%05d", *runs), "team": "a"}})
	check(err)
	bigID, _, err := store.Add(ctx, bs[0])
	check(err)
	addBig := time.Since(t0)
	fi, _ := os.Stat(filepath.Join(*dir, "runs.db"))
	bigInfo, _ := os.Stat(bigPath)

	srv := httptest.NewServer(site.New(store, site.Options{}))
	defer srv.Close()

	fmt.Printf("Results site over a SQLite archive of %d runs (%.0f MiB), one of %d results (file %.1f MiB); %s, %d CPUs, load %s\n",
		*runs, float64(fi.Size())/(1<<20), *big, float64(bigInfo.Size())/(1<<20), runtime.Version(), runtime.NumCPU(), machine.LoadAvg())
	fmt.Printf("filling: %d small runs added in %.1f s (%.1f ms each); the big run ingested and added in %.1f s\n\n",
		*runs-1, addSmall.Seconds(), addSmall.Seconds()*1000/float64(*runs-1), addBig.Seconds())
	fmt.Printf("%-52s %10s %10s %10s %10s %10s\n", "page", "first ms", "median ms", "max ms", "CPU ms", "KiB")
	pages := []struct{ name, path string }{
		{fmt.Sprintf("index, newest first (page 1 of %d)", (*runs+49)/50), "/"},
		{fmt.Sprintf("index, page %d", max(1, *runs*3/4/50)), fmt.Sprintf("/?page=%d", max(1, *runs*3/4/50))},
		{"index, sorted by p99", "/?sort=p99"},
		{"index, filtered by label team=b", "/?label=team%3Db"},
		{"index, filtered by name, 500 a page", "/?name=search&per=500"},
		{fmt.Sprintf("run page, %d results", *big), "/runs/" + bigID},
		{"run page, 1000 results", "/runs/" + ids[0]},
		{"compare, the big run against another", "/compare?ids=" + bigID + "," + ids[1]},
		{fmt.Sprintf("trend p99 by build, %d runs", *runs), "/trend?by=build&metric=p99"},
		{fmt.Sprintf("trend p99 by build, team=c (%d runs)", *runs/4), "/trend?by=build&metric=p99&label=team%3Dc"},
		{fmt.Sprintf("the big run's .bin download, %d results", *big), "/runs/" + bigID + "/results.bin"},
		{"the big run's archive.tar", "/runs/" + bigID + "/archive.tar"},
	}
	for _, p := range pages {
		times := make([]float64, 0, *n)
		var size int
		reps := *n
		if strings.HasSuffix(p.path, ".bin") || strings.HasSuffix(p.path, ".tar") {
			reps = 3
		}
		if strings.HasPrefix(p.path, "/trend") {
			// The first fetch starts the change points' computation and
			// answers after 3 s that it is under way; the page reloads
			// until it is done.
			t := time.Now()
			for strings.Contains(fetchBody(srv.URL+p.path), "This page reloads by itself") {
				time.Sleep(time.Second)
			}
			fmt.Printf("%-52s change points computed in %.1f s\n", p.name, time.Since(t).Seconds())
		}
		prof := *profile != "" && strings.Contains(p.name, *profPage)
		if prof {
			f, err := os.Create(*profile)
			check(err)
			check(pprof.StartCPUProfile(f))
		}
		cpu0 := machine.CPUTime()
		for i := 0; i < reps; i++ {
			t := time.Now()
			size = fetch(srv.URL + p.path)
			times = append(times, float64(time.Since(t).Microseconds())/1000)
		}
		if prof {
			pprof.StopCPUProfile()
			*profile = ""
		}
		cpu := (machine.CPUTime() - cpu0).Seconds() * 1000 / float64(reps)
		first := times[0]
		sort.Float64s(times)
		fmt.Printf("%-52s %10.1f %10.1f %10.1f %10.1f %10.0f\n", p.name, first, times[len(times)/2], times[len(times)-1], cpu, float64(size)/1024)
	}
}

// variant is run i of the small runs: the template's figures and files,
// its own name, labels, time and latency (drifting, up 30% from the
// middle build on).
func variant(tmpl *archive.Bundle, raw []byte, i, total int) *archive.Bundle {
	b := *tmpl
	r := tmpl.Run
	r.Labels = map[string]string{"build": fmt.Sprintf("%05d", i), "team": string(rune('a' + i%4))}
	r.Name = fmt.Sprintf("search-%d", i%7)
	r.Started = time.Unix(1_795_000_000, 0).Add(time.Duration(i) * time.Hour)
	r.Ended = r.Started.Add(time.Second)
	r.Content = fmt.Sprintf("bench-%d", i)
	r.ID, r.Slug = "", ""
	f := 1 + 0.05*math.Sin(float64(i)/50)
	if i >= total/2 {
		f *= 1.3
	}
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * f) }
	l := &r.Latencies
	l.P50, l.P90, l.P95, l.P99, l.Max, l.Mean = scale(l.P50), scale(l.P90), scale(l.P95), scale(l.P99), scale(l.Max), scale(l.Mean)
	r.Steps = append([]archive.Step(nil), tmpl.Run.Steps...)
	r.Steps[0].Figures = r.Figures
	b.Run = r
	b.Scenarios = map[string]archive.Figures{}
	for k := range tmpl.Scenarios {
		b.Scenarios[k] = r.Figures
	}
	b.Files = []archive.BundleFile{{Name: "small.lll", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(string(raw))), nil }}}
	return &b
}

// write writes n results at 1000/s: log-normal latencies around 20 ms,
// 5% 500s.
func write(path string, n int, seed uint64) {
	out, err := os.Create(path)
	check(err)
	bw := bufio.NewWriterSize(out, 1<<20)
	w, err := results.NewWriter(bw, results.Meta{Generator: "bench"})
	check(err)
	rng := rand.New(rand.NewPCG(seed, 2))
	start := time.Unix(1_795_296_174, 0)
	var r results.Result
	for i := 0; i < n; i++ {
		due := start.Add(time.Duration(i) * time.Millisecond)
		r = results.Result{Attack: "search", Seq: uint64(i), Due: due, Sent: due.Add(50 * time.Microsecond), Code: 200,
			Latency: time.Duration(20e6 * math.Exp(0.5*rng.NormFloat64())), Method: "GET", URL: "http://127.0.0.1:8080/search", BytesIn: 512}
		if rng.Float64() < 0.05 {
			r.Code, r.Error = 500, "500 Internal Server Error"
		}
		check(w.Encode(&r))
	}
	check(w.Close())
	check(bw.Flush())
	check(out.Close())
}

func fetchBody(url string) string {
	resp, err := http.Get(url)
	check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	check(err)
	return string(b)
}

func fetch(url string) int {
	resp, err := http.Get(url)
	check(err)
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	check(err)
	if resp.StatusCode != 200 {
		check(fmt.Errorf("%s: %s", url, resp.Status))
	}
	return int(n)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "archivesite:", err)
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
