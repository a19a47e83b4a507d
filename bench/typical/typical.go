// Package typical makes the results file of a typical paced attack that
// the benchmarks of loadlab's readers (bench/report, bench/archive) feed
// them: 1000 requests a second, latencies from 5 to 25 ms, one 500 in
// twenty, a second target every tenth request; seeded, so every run and
// every benchmark reads the same results.
package typical

import (
	"bufio"
	"math/rand/v2"
	"os"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Result makes result i of the attack (started at start) into r.
func Result(rng *rand.Rand, start time.Time, i int, r *results.Result) {
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

// WriteFile writes n results of the attack to path in format f and
// returns the file's size.
func WriteFile(path string, f results.Format, n int) (int64, error) {
	out, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<20)
	var enc results.Encoder
	finish := func() error { return nil }
	switch f {
	case results.FormatLoadlab:
		w, err := results.NewWriter(bw, results.Meta{Generator: "bench"})
		if err != nil {
			return 0, err
		}
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
		Result(rng, start, i, &r)
		if err := enc.Encode(&r); err != nil {
			return 0, err
		}
	}
	if err := finish(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	st, err := out.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), out.Close()
}
