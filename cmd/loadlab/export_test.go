package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/loadlab/loadlab/internal/testwait"
)

// startPrometheus runs Debian's real Prometheus on a free loopback port
// with the remote write receiver on and nothing to scrape, and returns its
// base URL.
func startPrometheus(t *testing.T) string {
	t.Helper()
	bin := "/usr/bin/prometheus"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing and CI is set: install Debian's prometheus", bin)
		}
		t.Skipf("%s not found: install Debian's prometheus to run this test", bin)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte("global: {}\n"), 0o644)
	port := freePort(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--web.enable-remote-write-receiver")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready := func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	if !testwait.Until(30*time.Second, ready) {
		t.Fatalf("prometheus not ready after 30 s:\n%s", logs.String())
	}
	return base
}

// promValue is the value of an instant query's single result.
func promValue(t *testing.T, base, query string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Data.Result) != 1 {
		t.Fatalf("%s: %d results", query, len(out.Data.Result))
	}
	v, _ := strconv.ParseFloat(out.Data.Result[0].Value[1].(string), 64)
	return v
}

// otlpReceiver is an OTLP/HTTP metrics receiver keeping every request.
type otlpReceiver struct {
	mu   sync.Mutex
	reqs []*colmetricpb.ExportMetricsServiceRequest
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body = zr
	}
	b, _ := io.ReadAll(body)
	var req colmetricpb.ExportMetricsServiceRequest
	if r.URL.Path != "/v1/metrics" || proto.Unmarshal(b, &req) != nil {
		http.Error(w, "bad request", 400)
		return
	}
	o.mu.Lock()
	o.reqs = append(o.reqs, &req)
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
	w.Write(out)
}

// last is the latest data of metric name: the sum of its points (the
// exporter's temporality is cumulative, so the last export has the
// totals) and the points themselves.
func (o *otlpReceiver) last(name string) (*metricpb.Metric, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.reqs) - 1; i >= 0; i-- {
		for _, rm := range o.reqs[i].GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					if m.GetName() == name {
						return m, true
					}
				}
			}
		}
	}
	return nil, false
}

// TestExportsPush runs a real attack that pushes its figures to Debian's
// Prometheus by remote write and to an OTLP/HTTP receiver, and checks the
// totals both hold at the end equal the results file's exactly.
func TestExportsPush(t *testing.T) {
	prom := startPrometheus(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(503)
		}
	}))
	defer srv.Close()
	otlp := &otlpReceiver{}
	osrv := httptest.NewServer(otlp)
	defer osrv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "a.lll")
	targets := []byte("GET " + srv.URL + "/ok\nGET " + srv.URL + "/ok\nGET " + srv.URL + "/fail\n")
	code, _, stderr := runCLI(t, targets, "attack", "-quiet", "-name", "push", "-rate", "100/s", "-duration", "2s", "-output", out,
		"-prometheus-remote-write", prom+"/api/v1/write", "-otlp-endpoint", osrv.URL, "-push-interval", "300ms")
	if code != 0 {
		t.Fatalf("attack: exit %d: %s", code, stderr)
	}
	// The results file: 200 requests, a third of them 503s.
	_, js, _ := runCLI(t, nil, "report", "-type", "json", out)
	var rep struct {
		Requests    float64        `json:"requests"`
		StatusCodes map[string]int `json:"status_codes"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	ok := float64(rep.StatusCodes["200"])
	if rep.Requests != 200 || ok == 0 || ok == 200 {
		t.Fatalf("results file: %+v", rep)
	}
	for q, want := range map[string]float64{
		`sum(loadlab_attack_requests_total{job="loadlab"})`:           rep.Requests,
		`sum(loadlab_attack_success_total)`:                           ok,
		`sum(request_seconds_count)`:                                  rep.Requests,
		`sum(request_seconds_count{status="503"})`:                    rep.Requests - ok,
		`sum(loadlab_attack_latency_seconds_bucket{le="+Inf"})`:       rep.Requests,
		`count(loadlab_attack_requests_total{attack="push",step=""})`: 1,
	} {
		if got := promValue(t, prom, q); got != want {
			t.Errorf("prometheus: %s = %v, want %v", q, got, want)
		}
	}

	sum := func(name string) (n int64) {
		m, found := otlp.last(name)
		if !found {
			t.Fatalf("otlp: no %s", name)
		}
		for _, p := range m.GetSum().GetDataPoints() {
			n += p.GetAsInt()
		}
		return n
	}
	if got := sum("loadlab.attack.requests"); float64(got) != rep.Requests {
		t.Errorf("otlp requests %d, want %v", got, rep.Requests)
	}
	if got := sum("loadlab.attack.successes"); float64(got) != ok {
		t.Errorf("otlp successes %d, want %v", got, ok)
	}
	lat, found := otlp.last("loadlab.attack.latency")
	if !found || lat.GetExponentialHistogram() == nil || lat.GetUnit() != "s" {
		t.Fatalf("otlp latency is not an exponential histogram in seconds: %v", lat)
	}
	var count uint64
	for _, p := range lat.GetExponentialHistogram().GetDataPoints() {
		count += p.GetCount()
	}
	if float64(count) != rep.Requests {
		t.Errorf("otlp latency count %d, want %v", count, rep.Requests)
	}
}

// A malformed push address is one line naming the flag, exit 2, before
// any request is sent.
func TestExportsBadInput(t *testing.T) {
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mu.Lock(); hits++; mu.Unlock() }))
	defer srv.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-prometheus-remote-write", "prom:9090/api/v1/write"}, "-prometheus-remote-write: want an http(s) URL"},
		{[]string{"-prometheus-remote-write", "http://127.0.0.1:9/api/v1/write", "-prometheus-remote-write-version", "3"}, "-prometheus-remote-write-version: want 1 or 2"},
		{[]string{"-otlp-endpoint", "ftp://collector:4318"}, "-otlp-endpoint: want the http(s) URL"},
		{[]string{"-otlp-endpoint", "http://127.0.0.1:9", "-push-interval", "0s"}, "-push-interval: want a positive duration"},
	} {
		code, _, stderr := runCLI(t, []byte("GET "+srv.URL+"/\n"), append([]string{"attack", "-rate", "10/s", "-duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q (want %q)", c.args, code, stderr, c.want)
		}
		code, _, stderr = runCLI(t, nil, append([]string{"run"}, append(c.args, "plan.yaml")...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("run %v: exit %d, %q", c.args, code, stderr)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Errorf("%d requests sent despite bad input", hits)
	}
}
