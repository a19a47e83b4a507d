package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// BenchmarkUnpaced measures the generator's cost per request, as fast as
// possible with 16 workers. Set LOADLAB_BENCH_URL to aim it at an external
// server (e.g. nginx on another core) so the profile holds only the
// generator.
func BenchmarkUnpaced(b *testing.B) { benchUnpaced(b, benchTarget) }

// BenchmarkUnpacedTemplated is BenchmarkUnpaced with a templated URL and
// header, the path whose rendered values are checked per request.
func BenchmarkUnpacedTemplated(b *testing.B) { benchUnpaced(b, benchTemplated) }

// benchUnpaced runs b.N requests of the targets made by target, as fast as
// possible with 16 workers, through each client.
func benchUnpaced(b *testing.B, target func(*testing.B) targets.Targeter) {
	for _, client := range clients {
		b.Run(client, func(b *testing.B) {
			tr := target(b)
			o := DefaultOptions()
			o.Client, o.MaxWorkers = client, 16
			o.Schedule = &schedule.Schedule{Kind: schedule.Max}
			a, _ := New(tr, o)
			ctx, cancel := context.WithCancel(context.Background())
			n := 0
			b.ResetTimer()
			t0 := time.Now()
			a.Run(ctx, func(r *results.Result) {
				n++
				if n == b.N {
					cancel()
				}
			})
			b.ReportMetric(float64(n)/time.Since(t0).Seconds(), "req/s")
		})
	}
}

// BenchmarkPaced runs 5000 requests/s for 2 s per iteration, with the
// batched pacer and the precise one (the default) (use -benchtime=1x with
// LOADLAB_BENCH_URL and -cpuprofile to see what pacing costs).
func BenchmarkPaced(b *testing.B) {
	tr := benchTarget(b)
	for _, pacer := range []string{PacerBatched, PacerPrecise} {
		b.Run(pacer, func(b *testing.B) {
			for b.Loop() {
				o := DefaultOptions()
				o.Pacer = pacer
				o.Schedule, _ = schedule.Parse("5000/s", 2*time.Second)
				a, _ := New(tr, o)
				var lag time.Duration
				a.Run(context.Background(), func(r *results.Result) { lag += r.Sent.Sub(r.Due) })
				st := a.Stats()
				b.ReportMetric(float64(st.Dropped), "dropped")
				b.ReportMetric(float64(st.Late), "late")
				b.ReportMetric(float64(st.Workers), "workers")
				if st.Sent > 0 {
					b.ReportMetric(float64(lag.Microseconds())/float64(st.Sent), "lag-µs/req")
				}
			}
		})
	}
}

// benchTemplated is benchTarget with a templated query and header values.
func benchTemplated(b *testing.B) targets.Targeter {
	b.Helper()
	url := benchURL(b)
	src := "GET " + url + "/search?q={{rand.letters 20}}\nX-Request-Id: {{uuid}}\nX-Tenant: {{rand.choice acme initech \"big co\"}}\n"
	ts, err := targets.ReadAll(strings.NewReader(src), targets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tr, err := targets.NewRoundRobin(ts)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// benchURL is $LOADLAB_BENCH_URL, or a loopback server answering 1 kB
// when it is not set (closed when the benchmark ends).
func benchURL(b *testing.B) string {
	b.Helper()
	url := os.Getenv("LOADLAB_BENCH_URL")
	if url == "" {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 1024)) }))
		b.Cleanup(srv.Close)
		url = srv.URL
	}
	return url
}

// benchTarget is GET $LOADLAB_BENCH_URL, or a loopback server answering
// 1 kB when it is not set (closed when the benchmark ends).
func benchTarget(b *testing.B) targets.Targeter {
	b.Helper()
	tr, err := targets.Static("GET", benchURL(b))
	if err != nil {
		b.Fatal(err)
	}
	return tr
}
