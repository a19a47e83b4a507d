package sampler

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

func sel(t *testing.T, ss ...string) []plan.Selector {
	var out []plan.Selector
	for _, s := range ss {
		p, err := plan.ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestScrape(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		fmt.Fprintf(w, `# TYPE pool_in_use gauge
pool_in_use{pool="a"} %d
pool_in_use{pool="b"} 1
# TYPE responses_total counter
responses_total{origin="upstream"} %d
responses_total{origin="fallback"} 0
# TYPE wait_seconds histogram
wait_seconds_bucket{le="1"} %d
wait_seconds_bucket{le="+Inf"} %d
wait_seconds_sum %f
wait_seconds_count %d
# TYPE other gauge
other 5
`, 3*i, 100*i, 10*i, 10*i, 0.5*float64(i), 10*i)
	}))
	defer srv.Close()
	// The interval is the scrape's timeout too: long enough for a loaded
	// machine (SampleOnce is called here, not on the interval).
	s := New(Config{Interval: 10 * time.Second, Sources: []Source{{Name: "proxy", URL: srv.URL,
		Selectors: sel(t, `pool_in_use{pool="a"}`, `responses_total{origin="upstream"}`, "wait_*")}}})
	ctx := context.Background()
	s.SampleOnce(ctx)
	s.SampleOnce(ctx)
	got := map[string]float64{}
	var times []time.Time // of the gauge, sampled at each reading
	for _, smp := range s.Samples() {
		got[smp.Series] = smp.Value
		if smp.Series == "proxy pool_in_use{pool=a}" {
			times = append(times, smp.Time)
		}
	}
	if got["proxy pool_in_use{pool=a}"] != 6 || len(times) != 2 {
		t.Fatalf("gauge: %v at %v", got, times)
	}
	if _, ok := got["proxy pool_in_use{pool=b}"]; ok {
		t.Errorf("unselected label kept: %v", got)
	}
	// The counter went from 100 to 200 between the two readings.
	want := 100 / times[1].Sub(times[0]).Seconds()
	if r := got["proxy responses_total{origin=upstream} /s"]; math.Abs(r-want) > want*1e-9 {
		t.Errorf("counter rate %v, want %v/s (100 over %v)", r, want, times[1].Sub(times[0]))
	}
	if m := got["proxy wait_seconds mean"]; m < 0.049 || m > 0.051 {
		t.Errorf("histogram mean %v, want 0.05", m)
	}
	if _, ok := got["proxy other"]; ok {
		t.Error("unselected series kept")
	}
	if len(s.Errors()) != 0 {
		t.Errorf("errors %v", s.Errors())
	}
}

func TestScrapeFailureAndProcs(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	s := New(Config{Interval: 100 * time.Millisecond, Sources: []Source{{Name: "origin", URL: srv.URL, Selectors: sel(t, "x")}}, Generator: "gen"})
	ctx, cancel := context.WithTimeout(context.Background(), 350*time.Millisecond)
	defer cancel()
	go func() { // burn a little CPU so the generator's reading is non-zero
		for ctx.Err() == nil {
		}
	}()
	s.Run(ctx)
	if !strings.Contains(s.Errors()["origin"], "404") {
		t.Errorf("errors %v", s.Errors())
	}
	var cpu, rss, host bool
	for _, smp := range s.Samples() {
		switch smp.Series {
		case "gen " + SeriesCPU:
			cpu = cpu || smp.Value > 0
		case "gen " + SeriesRSS:
			rss = smp.Value > 1
		case SeriesHost:
			host = true
		}
	}
	if !cpu || !rss || !host {
		t.Errorf("cpu %v rss %v host %v: %v", cpu, rss, host, s.Samples())
	}
}

func TestGeneratorSaturated(t *testing.T) {
	now := time.Now()
	var ss []Sample
	for i := 0; i < 4; i++ {
		ss = append(ss, Sample{Time: now, Series: "gen " + SeriesCPU, Value: 10})
	}
	if sat, _ := GeneratorSaturated(ss, "gen"); sat {
		t.Error("10% flagged")
	}
	for i := 0; i < 4; i++ {
		ss = append(ss, Sample{Time: now, Series: SeriesHost, Value: 99})
	}
	if sat, why := GeneratorSaturated(ss, "gen"); !sat || !strings.Contains(why, "95%") {
		t.Errorf("busy host not flagged: %q", why)
	}
}
