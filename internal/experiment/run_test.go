package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attackrun"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/promexport"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock/probe"
	"github.com/loadlab/loadlab/internal/testwait"
)

// counted sums the counter family name of e.
func counted(e *promexport.Exporter, name string) float64 {
	fams, _ := e.Registry().Gather()
	total := 0.0
	for _, f := range fams {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

// The test binary doubles as the system under test: with
// LOADLAB_EXPERIMENT_HELPER set it serves HTTP on loopback.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LOADLAB_EXPERIMENT_HELPER"); mode != "" {
		helper(mode)
		return
	}
	os.Exit(m.Run())
}

func helper(mode string) {
	addr := "127.0.0.1:0"
	if mode == "addr-taken-once" {
		// Listens on the address it is given (its last argument), but the
		// first time it is started (no marker file yet) reports it taken,
		// as when another process bound the free port first.
		addr = os.Args[len(os.Args)-1]
		marker := os.Getenv("LOADLAB_EXPERIMENT_MARKER")
		if _, err := os.Stat(marker); err != nil {
			os.WriteFile(marker, nil, 0o644)
			fmt.Fprintf(os.Stderr, "listen tcp %s: bind: address already in use\n", addr)
			os.Exit(2)
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		os.Exit(1)
	}
	fmt.Printf("build listening on http://%s\n", l.Addr())
	go func() { time.Sleep(30 * time.Second); os.Exit(0) }() // bounded
	var searches atomic.Int64
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mode == "die" && r.URL.Path == "/search" && searches.Add(1) == 20 {
			fmt.Fprintln(os.Stderr, "fatal error: pool supervisor crashed")
			os.Exit(2) // mid-step: after 20 searches (half a second at 40/s)
		}
		if mode == "errors" && r.URL.Path != "/" {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		if r.URL.Path == "/metrics" {
			fmt.Fprintln(w, "# TYPE pool_in_use gauge\npool_in_use 3")
			return
		}
		time.Sleep(5 * time.Millisecond)
		fmt.Fprintln(w, "hello")
	}))
}

// testPlan writes a plan running the helper in mode, with the given extra
// YAML, and parses it.
func testPlan(t *testing.T, mode, duration, extra string) *plan.Plan {
	t.Helper()
	src := fmt.Sprintf(`name: test
components:
  build:
    kind: command
    command: [%q, "-test.run=^$"]
    env: {LOADLAB_EXPERIMENT_HELPER: %s}
scenarios:
  - name: search
    target: "GET ${build.url}/search?q={{rand.letters 8}}"
    rate: 40/s
    duration: %s
    timeout: 2s
  - name: news
    target: GET ${build.url}/news
    rate: 4/s
    duration: %s
    timeout: 2s
%s`, os.Args[0], mode, duration, duration, extra)
	p, err := plan.Parse("plan.yaml", t.TempDir(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, ctx context.Context, p *plan.Plan, more ...func(*Options)) (*Outcome, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	opts := Options{Plan: p, Out: out, Version: "test"}
	for _, f := range more {
		f(&opts)
	}
	res, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.json", "samples.csv", "samples.json", "report.html", "plan.yaml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	var sum summary.Summary
	js, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(js, &sum); err != nil {
		t.Errorf("summary.json: %v", err)
	}
	return res, string(md)
}

func TestRunTwoStepsWithThresholds(t *testing.T) {
	p := testPlan(t, "ok", "1s", `matrix:
  rate: [20, 30]
step_name: "${rate} rps"
samplers:
  metrics:
    - {from: build, path: /metrics, series: [pool_in_use]}
thresholds: ["success > 99%", "search: p99 < 1ns"]
`)
	// The matrix variable is not used by the scenarios here; two steps run.
	res, md := run(t, context.Background(), p)
	s := res.Summary
	if len(s.Steps) != 2 || s.Steps[0].Name != "20 rps" {
		t.Fatalf("steps %+v", s.Steps)
	}
	for _, st := range s.Steps {
		if len(st.Scenarios) != 2 || st.Scenarios[0].Requests < 30 || st.Scenarios[1].Requests < 3 || st.Scenarios[0].Success < 0.9 {
			t.Errorf("step %s: %+v %+v", st.Name, st.Scenarios[0], st.Scenarios[1])
		}
		if st.Peaks["build pool_in_use"] != 3 {
			t.Errorf("sampled peaks %v", st.Peaks)
		}
		// every scenario and step records what the machine did to it
		for _, sc := range st.Scenarios {
			if h := sc.Health; h == nil || h.LagP99 < 0 || h.Noise < 0 || (probe.GeneratorMeasured() && (h.GeneratorCPU <= 0 || h.Busy <= 0)) {
				t.Errorf("step %s scenario %s health %+v", st.Name, sc.Name, h)
			}
		}
		if st.Health == nil || st.Health.LagP99 != max(st.Scenarios[0].Health.LagP99, st.Scenarios[1].Health.LagP99) {
			t.Errorf("step %s health %+v", st.Name, st.Health)
		}
	}
	if s.Health == nil || (probe.GeneratorMeasured() && s.Health.Busy <= 0) {
		t.Errorf("the run's health %+v", s.Health)
	}
	if !strings.Contains(md, "While the attacks ran: ") || !strings.Contains(md, "% of p99)") {
		t.Errorf("report.md does not say what the machine did")
	}
	if res.ExitCode != ExitThresholds {
		t.Errorf("exit %d, want %d (p99 < 1ns must fail)", res.ExitCode, ExitThresholds)
	}
	for _, want := range []string{"## Comparison", "| Configuration | RPS | Latencies [mean, 50, 95, 99, max] | Success ratio |",
		"Requests      [total, rate, throughput]", "Status Codes  [code:count]", "charts/step01-latency.svg",
		"charts/percentiles-search.svg", "`search: p99 < 1ns`", "**FAIL**", "build pool_in_use"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// report.html leads with the answer and carries the thresholds too.
	html, err := os.ReadFile(filepath.Join(filepath.Dir(res.Report), "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	cmp, th, step := strings.Index(page, "<h2>Comparison</h2>"), strings.Index(page, "<h2>Thresholds</h2>"), strings.Index(page, "<h2>20 rps</h2>")
	if cmp < 0 || th < cmp || step < th || !strings.Contains(page, "checks failed.") || !strings.Contains(page, "search: p99 &lt; 1ns") {
		t.Errorf("report.html: comparison at %d, thresholds at %d, first step at %d", cmp, th, step)
	}
	if len(s.Findings) > 0 && !strings.Contains(page, `<ul class="findings"><li>`) {
		t.Errorf("report.html does not list the findings")
	}
	for _, f := range []string{"charts/step02-latency.svg", "steps/01-20-rps/search.lll", "steps/02-30-rps/news.txt"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(res.Report), f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	testRewrite(t, filepath.Dir(res.Report))
}

// testRewrite rebuilds the report of the run in dir from the folder alone
// and checks that it equals the one the run wrote.
func testRewrite(t *testing.T, dir string) {
	t.Helper()
	files := []string{"report.md", "report.html", "summary.json", "charts/step01-latency.svg", "charts/percentiles-search.svg"}
	before := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		before[f] = data
		os.Remove(filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), before["summary.json"], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Rewrite(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != filepath.Join(dir, "report.md") || res.ExitCode != ExitThresholds {
		t.Errorf("rewrite outcome %+v", res)
	}
	for _, f := range files {
		after, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if string(after) != string(before[f]) {
			t.Errorf("rebuilt %s differs from the run's (%d bytes, was %d)", f, len(after), len(before[f]))
		}
	}
	if _, err := Rewrite(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "holds no run") {
		t.Errorf("rewrite of an empty folder: %v", err)
	}
}

func TestComponentDiesMidStep(t *testing.T) {
	// The component dies half a second in; a step that ran on would take
	// its 30 s (the bound leaves a loaded machine room to start the
	// component and write the report).
	p := testPlan(t, "die", "30s", "steps: [{name: first}, {name: second}]\n")
	start := time.Now()
	res, md := run(t, context.Background(), p)
	if time.Since(start) > 15*time.Second {
		t.Errorf("the step ran on after the component died (%s)", time.Since(start))
	}
	s := res.Summary
	if res.ExitCode != ExitAborted || len(s.Steps) != 1 || !strings.Contains(s.Aborted, "component build died") {
		t.Fatalf("exit %d, %d steps, aborted %q", res.ExitCode, len(s.Steps), s.Aborted)
	}
	st := s.Steps[0]
	if len(st.Deaths) != 1 || !strings.Contains(strings.Join(st.Deaths[0].LastOutput, "\n"), "pool supervisor crashed") {
		t.Errorf("deaths %+v", st.Deaths)
	}
	if st.Scenarios[0].Requests == 0 {
		t.Error("results before the death were not kept")
	}
	for _, want := range []string{"pool supervisor crashed", "Stopped early", "Component build failed"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func TestErrorRatioStopsStep(t *testing.T) {
	// Each step stops after its first 1 s window; steps that ran their
	// 30 s would take a minute.
	p := testPlan(t, "errors", "30s", "stop: {error_ratio: 50%, window: 1s, min_requests: 10}\nsteps: [{name: a}, {name: b}]\n")
	start := time.Now()
	res, md := run(t, context.Background(), p)
	if time.Since(start) > 20*time.Second {
		t.Errorf("took %s: the steps were not stopped", time.Since(start))
	}
	s := res.Summary
	if len(s.Steps) != 2 || !strings.Contains(s.Steps[0].Aborted, "error ratio") || !strings.Contains(s.Steps[1].Aborted, "error ratio") {
		t.Fatalf("steps %+v", s.Steps)
	}
	if !strings.Contains(md, "exceeded the stop condition") {
		t.Error("report.md does not say why the step stopped")
	}
}

func TestInterruptWritesReport(t *testing.T) {
	p := testPlan(t, "ok", "10s", "steps: [{name: only}, {name: never}]\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Ctrl-C once the first step has results (its component is up and it
	// is sending), whatever the time that took.
	exp := promexport.New()
	var interrupted atomic.Int64 // unix ns
	go func() {
		testwait.Until(time.Minute, func() bool { return ctx.Err() != nil || counted(exp, "loadlab_attack_requests_total") >= 10 })
		interrupted.Store(time.Now().UnixNano())
		cancel()
	}()
	res, md := run(t, ctx, p, func(o *Options) { o.Exporters = []attackrun.Watcher{exp} })
	if interrupted.Load() == 0 {
		t.Fatal("the run ended before it had results to be interrupted")
	}
	// The step had 10 s to go; the run stops within a few.
	if took := time.Since(time.Unix(0, interrupted.Load())); took > 6*time.Second {
		t.Errorf("took %s after Ctrl-C", took)
	}
	if res.ExitCode != ExitInterrupted || !res.Summary.Interrupted || len(res.Summary.Steps) != 1 {
		t.Fatalf("exit %d interrupted %v steps %d", res.ExitCode, res.Summary.Interrupted, len(res.Summary.Steps))
	}
	if n := res.Summary.Steps[0].Scenarios[0].Requests; n == 0 || n > 200 {
		t.Errorf("%d requests", n)
	}
	if !strings.Contains(md, "Interrupted") || !strings.Contains(md, "Requests      [total, rate, throughput]") {
		t.Error("report.md does not cover the interrupted step")
	}
	// The step's results file says the attack did not finish: it planned
	// 40/s for 10 s and holds fewer.
	src, err := results.Open(filepath.Join(filepath.Dir(res.Report), res.Summary.Steps[0].Scenarios[0].Results))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Meta == nil || src.Meta.Planned != 400 || src.Meta.Planned <= res.Summary.Steps[0].Scenarios[0].Requests {
		t.Errorf("results header %+v after %d requests: want 400 planned", src.Meta, res.Summary.Steps[0].Scenarios[0].Requests)
	}
}

func TestOutputFolderMustBeEmpty(t *testing.T) {
	p := testPlan(t, "ok", "1s", "")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "summary.json"), nil, 0o644)
	if _, err := Run(context.Background(), Options{Plan: p, Out: dir}); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Fatalf("got %v", err)
	}
}

func TestRenderConfig(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "proxy.yaml")
	os.WriteFile(f, []byte("pools:\n  default: {size: 4, overflow: 32}\nroutes:\n  - path: /*\n    upstream: ${origin.url}\n    pool: default\n"), 0o644)
	out, err := plan.RenderConfig(f, []plan.Setting{{Path: "pools.default.size", Value: 36}, {Path: "pools.default.overflow", Value: 0}, {Path: "cache.max_entries", Value: 5}},
		map[string]string{"origin": "http://127.0.0.1:9"}, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"size: 36", "overflow: 0", "upstream: http://127.0.0.1:9", "max_entries: 5"} {
		if !strings.Contains(s, want) {
			t.Errorf("rendered config lacks %q:\n%s", want, s)
		}
	}
	if _, err := plan.RenderConfig(f, nil, nil, ""); err == nil || !strings.Contains(err.Error(), "before component \"origin\"") {
		t.Errorf("got %v", err)
	}
}

// TestExternalTarget runs a plan that starts nothing: the target is a URL.
func TestExternalTarget(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Run") != "external" {
			http.Error(w, "missing header", http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "ok")
	}))
	defer srv.Close()
	src := fmt.Sprintf(`target: %s
warmup: 300ms
steps:
  - {name: slow, vars: {r: 10}}
  - {name: ramp, vars: {r: "10/s..30"}}
  - name: stairs
    scenarios:
      - {name: home, target: "GET ${target}/home", headers: {X-Run: external}, steps: [10, 30], step_duration: 500ms}
scenarios:
  - name: home
    target: GET ${target}/home
    headers: {X-Run: external}
    rate: ${r}
    duration: 1s
thresholds: ["success > 90%%", "home: requests >= 10"]
`, srv.URL)
	p, err := plan.Parse("plan.yaml", t.TempDir(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, md := run(t, context.Background(), p)
	s := res.Summary
	if res.ExitCode != 0 || len(s.Steps) != 3 {
		t.Fatalf("exit %d, %+v", res.ExitCode, s.Thresholds)
	}
	if s.Steps[0].WarmupResults == 0 || s.Steps[0].Scenarios[0].Requests != 10 || s.Steps[0].Scenarios[0].Success < 0.9 {
		t.Errorf("step 1: warm-up %d, %+v", s.Steps[0].WarmupResults, s.Steps[0].Scenarios[0])
	}
	if n := s.Steps[1].Scenarios[0].Requests; n < 15 || n > 25 {
		t.Errorf("ramp 10..30 over 1 s sent %d requests, want about 20", n)
	}
	if n := s.Steps[2].Scenarios[0].Requests; n < 17 || n > 23 || s.Steps[2].Scenarios[0].Rate != "10,30 every 500ms" {
		t.Errorf("stairs 10,30 every 500ms sent %d requests (want about 20), rate %q", n, s.Steps[2].Scenarios[0].Rate)
	}
	if len(s.Steps[0].Components) != 0 || !strings.Contains(md, "| slow | 10 |") {
		t.Errorf("report.md comparison rows wrong")
	}
}

// TestRelativeOutputFolder: components run in the plan's folder, so a
// relative -out must be resolved before any path is handed to them (make
// demo, which writes ./loadlab-demo-*, failed when it was not).
func TestRelativeOutputFolder(t *testing.T) {
	p := testPlan(t, "ok", "1s", "")
	t.Chdir(t.TempDir())
	res, err := Run(context.Background(), Options{Plan: p, Out: "out", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(res.Report) {
		t.Fatalf("report path %q is relative", res.Report)
	}
	if _, err := os.Stat(filepath.Join("out", "report.md")); err != nil {
		t.Fatal(err)
	}
}

// A target that holds every request past max_workers: the requests due
// then are dropped, recorded as dropped at max_workers (the target's
// backlog, not a stalled generator), and the step is kept.
func TestMaxWorkersDropsAreTheTargets(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	src := fmt.Sprintf(`target: %s
scenarios:
  - {name: slow, target: "GET ${target}/slow", rate: 50, duration: 1s, timeout: 2s, max_workers: 5}
`, srv.URL)
	p, err := plan.Parse("plan.yaml", t.TempDir(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := run(t, context.Background(), p)
	sc := res.Summary.Steps[0].Scenarios[0]
	if sc.Dropped < 30 || sc.DroppedAtMaxWorkers != sc.Dropped || sc.DroppedBehind() != 0 {
		t.Errorf("dropped %d, at max_workers %d, behind %d; want about 45, all at max_workers", sc.Dropped, sc.DroppedAtMaxWorkers, sc.DroppedBehind())
	}
	if why := res.Summary.Steps[0].Disturbed(); why != "" {
		t.Errorf("the step counts as disturbed: %s", why)
	}
	for _, w := range res.Summary.Warnings {
		if strings.Contains(w, "fell behind") {
			t.Errorf("warning blames the generator: %s", w)
		}
	}
}

// TestCommandStartedAgainWhenItsAddressWasTaken: a command given ${addr}
// is handed a port that was free when it was picked; when another
// process binds it first, the command fails to listen, and the step is
// not lost for it: the command is started again on a new address. (The
// helper stands in for the other process: the first time it is started
// it reports its address taken.)
func TestCommandStartedAgainWhenItsAddressWasTaken(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started-once")
	src := fmt.Sprintf(`name: test
components:
  build:
    kind: command
    command: [%q, "-test.run=^$", "${addr}"]
    env: {LOADLAB_EXPERIMENT_HELPER: addr-taken-once, LOADLAB_EXPERIMENT_MARKER: %q}
scenarios:
  - {name: news, target: "GET ${build.url}/news", rate: 20/s, duration: 500ms, timeout: 2s}
`, os.Args[0], marker)
	p, err := plan.Parse("plan.yaml", t.TempDir(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := run(t, context.Background(), p)
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the command was never refused its address: the test proves nothing")
	}
	if len(res.Summary.Steps) != 1 || len(res.Summary.Steps[0].Scenarios) != 1 {
		t.Fatalf("exit %d, steps %+v: the step was lost to a taken address", res.ExitCode, res.Summary.Steps)
	}
	sc := res.Summary.Steps[0].Scenarios[0]
	if res.ExitCode != 0 || sc.Requests == 0 || sc.Success < 1 {
		t.Errorf("exit %d, %d requests at %.0f%% success: the step was lost to a taken address", res.ExitCode, sc.Requests, 100*sc.Success)
	}
}
