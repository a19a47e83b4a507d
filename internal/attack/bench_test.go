package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
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
func BenchmarkUnpaced(b *testing.B) {
	for _, client := range clients {
		b.Run(client, func(b *testing.B) {
			url := os.Getenv("LOADLAB_BENCH_URL")
			if url == "" {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 1024)) }))
				defer srv.Close()
				url = srv.URL
			}
			tr, err := targets.Static("GET", url)
			if err != nil {
				b.Fatal(err)
			}
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
