package promexport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// scrape reads the exporter's metrics over HTTP.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func sum(f *dto.MetricFamily) (total float64) {
	if f == nil {
		return 0
	}
	for _, m := range f.Metric {
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	return total
}

// A short attack against a loopback server, exported while it runs: the
// counters scraped at the end equal the results exactly.
func TestExportMatchesTheResults(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	e, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ts, _ := targets.ReadAll(strings.NewReader("GET "+srv.URL+"/ok\nGET "+srv.URL+"/bad\n"), targets.Options{})
	tr, _ := targets.NewRoundRobin(ts)
	o := attack.DefaultOptions()
	o.Name = "search"
	o.Schedule, _ = schedule.Parse("100/s", 1500*time.Millisecond)
	a, err := attack.New(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	e.Begin("", nil, a.Stats)
	var rs []results.Result
	midway := false
	if err := a.Run(context.Background(), func(r *results.Result) {
		rs = append(rs, *r)
		e.Add(r)
		if len(rs) == 50 && !midway {
			midway = true
			if got := sum(scrape(t, e.Addr())["loadlab_attack_requests_total"]); got != 50 {
				t.Errorf("scraped mid-attack: %v requests, want 50", got)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	var ok, in, fails float64
	for _, r := range rs {
		if r.Success() {
			ok++
		}
		in += float64(r.BytesIn)
		if r.Error != "" {
			fails++
		}
	}
	f := scrape(t, e.Addr())
	for name, want := range map[string]float64{
		"request_seconds": float64(len(rs)), "loadlab_attack_requests_total": float64(len(rs)), "loadlab_attack_success_total": ok,
		"request_bytes_in": in, "request_fail_count": fails, "loadlab_attack_latency_seconds": float64(len(rs)),
	} {
		if got := sum(f[name]); got != want {
			t.Errorf("%s = %v, the results say %v", name, got, want)
		}
	}
	if len(rs) != 150 || ok != 75 {
		t.Errorf("%d results, %v ok", len(rs), ok)
	}
	// vegeta's labels, so its dashboards work.
	m := f["request_seconds"].Metric[0]
	var labels []string
	for _, l := range m.Label {
		labels = append(labels, l.GetName())
	}
	if strings.Join(labels, ",") != "method,status,url" {
		t.Errorf("request_seconds labels %v", labels)
	}
	if _, err := Listen(e.Addr()); err == nil {
		t.Error("a port in use was accepted")
	}
}

// A dashboard's panels find every series before anything happens: the
// step's attacks' counters at 0 (not absent until the first drop), and the
// generator's own process and runtime collectors beside them.
func TestCountersStartAtZeroWithProcessCollectors(t *testing.T) {
	e, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Begin("200 rps", []string{"search", "news"}, nil)
	fams := scrape(t, e.Addr())
	for _, name := range []string{"loadlab_attack_requests_total", "loadlab_attack_success_total", "loadlab_attack_dropped_total"} {
		f := fams[name]
		if f == nil {
			t.Fatalf("%s is not exported before the first result", name)
		}
		got := map[string]float64{}
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["step"] != "200 rps" {
				t.Errorf("%s: step label %q, want %q", name, labels["step"], "200 rps")
			}
			got[labels["attack"]] = m.Counter.GetValue()
		}
		if len(got) != 2 || got["search"] != 0 || got["news"] != 0 {
			t.Errorf("%s = %v, want search and news at 0", name, got)
		}
	}
	for _, name := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("%s is not exported: the generator's CPU panel would find no series", name)
		}
	}
	e.Add(&results.Result{Attack: "search", Method: "GET", URL: "http://127.0.0.1/", Code: 503, Error: "503 Service Unavailable", Latency: time.Millisecond})
	h := scrape(t, e.Addr())["request_fail_count"]
	if h == nil || sum(h) != 1 || !strings.Contains(h.GetHelp(), "outside 2xx/3xx") {
		t.Errorf("request_fail_count's help does not say it counts failed answers: %q", h.GetHelp())
	}
}
