package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// With asBinaryEnv set, the test binary is loadlab itself, so
// that `loadlab run` can start it as the origin and proxy components.
func TestMain(m *testing.M) {
	if os.Getenv(asBinaryEnv) == "1" {
		os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if spec := os.Getenv("LOADLAB_TEST_KUBECTL"); spec != "" {
		os.Exit(kubectlStandin(spec, os.Args[1:]))
	}
	childRaceOptions()
	// The model's predictions in tests assume the reference machine's
	// costs: the same figures on every machine (TestModelWake measures).
	os.Setenv("LOADLAB_WAKE", "reference")
	code := m.Run()
	pgtest.StopShared() // the archive tests' Postgres, when they started one
	removeSharedFixtures()
	os.Exit(code)
}

const e2ePlan = `name: e2e
components:
  origin:
    kind: origin
    recipe: origin.json
  proxy:
    kind: proxy
    config: proxy.yaml
    variants:
      small: {label: 2 workers + 2 overflow}
      big:
        label: 16 workers
        set: {pools.default.size: 16, pools.default.overflow: 0, pools.default.checkout_timeout: 1s}
matrix:
  proxy: [small, big]
step_name: "${proxy.label}"
scenarios:
  - name: search
    target: "GET ${proxy.url}/search?q={{rand.letters 50}}"
    rate: 40/s
    duration: 2s
    timeout: 3s
  - name: news
    target: GET ${proxy.url}/news
    rate: 2/s
    duration: 2s
    timeout: 3s
thresholds: ["search: success > 99%"]
`

const e2eProxy = `pools:
  default: {size: 2, overflow: 2, checkout_timeout: 100ms}
routes:
  - {name: search, path: /search*, upstream: "${origin.url}", pool: default, request_timeout: 2s}
  - {name: news, path: /news*, upstream: "${origin.url}", pool: default, request_timeout: 2s}
`

// TestRunEndToEnd runs origin + proxy (this binary) with two concurrent
// scenarios for 2 s per step: the 4-worker pool cannot serve 42 req/s of a
// 200 ms origin, the 16-worker one can.
func TestRunEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and runs 4 s of load")
	}
	t.Setenv(asBinaryEnv, "1")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plan.yaml", e2ePlan)
	write("proxy.yaml", e2eProxy)
	write("origin.json", `{"stages": [{"at": 0, "status": 200, "latency": "200ms"}]}`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, nil, "run", "-quiet", "-out", out, filepath.Join(dir, "plan.yaml"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the small pool fails the threshold)\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "threshold checks failed") || !strings.Contains(stdout, "report: ") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	var sum struct {
		Steps []struct {
			Name       string
			Components []struct {
				Name        string
				CommandLine string `json:"command_line"`
			}
			Scenarios []struct {
				Name     string
				Requests uint64
				Success  float64
			}
		}
		Findings []struct{ Kind, Text string }
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Steps) != 2 {
		t.Fatalf("%d steps", len(sum.Steps))
	}
	small, big := sum.Steps[0], sum.Steps[1]
	if small.Scenarios[0].Requests != 80 || small.Scenarios[1].Requests != 4 || big.Scenarios[0].Requests != 80 {
		t.Errorf("requests: %+v %+v", small.Scenarios, big.Scenarios)
	}
	// The small pool serves at most 4 requests per 200 ms, 20 of the 42
	// req/s (48%): its success cannot exceed about half. The big pool has
	// twice the workers it needs, and fails only when the machine stalls
	// the proxy past its 100 ms checkout timeout: it measured 0.88 once
	// (against a former bound of 0.9) with the whole package's tests
	// running beside it on 2 cores. So it is judged against the small
	// pool, with a wide margin, not against a fixed bar.
	if small.Scenarios[0].Success > 0.6 || big.Scenarios[0].Success < small.Scenarios[0].Success+0.25 {
		t.Errorf("success: small pool %.2f (want at most 0.6), big pool %.2f (want 0.25 more)", small.Scenarios[0].Success, big.Scenarios[0].Success)
	}
	if len(small.Components) != 2 || !strings.HasPrefix(small.Components[1].CommandLine, "loadlab proxy -config ") {
		t.Errorf("components %+v", small.Components)
	}
	var texts []string
	for _, f := range sum.Findings {
		texts = append(texts, f.Text)
	}
	if !strings.Contains(strings.Join(texts, " "), "16 workers") || sum.Findings[0].Kind == "" {
		t.Errorf("findings %+v", sum.Findings)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"## Comparison", "| 2 workers + 2 overflow | 40/s |", "#### Loadlab hitting news", "proxy loadlab_proxy_pool_workers_in_use", "size: 16"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// The search scenario's templated URLs encode as the URLs really
	// requested (the results header keeps the seed and the template).
	files, _ := filepath.Glob(filepath.Join(out, "*", "*", "search.lll"))
	if len(files) != 2 {
		t.Fatalf("search results files: %v", files)
	}
	code, csv, stderr := runCLI(t, nil, "encode", "-to", "csv", files[0])
	if code != 0 {
		t.Fatalf("encode: %s", stderr)
	}
	if lines := strings.Count(csv, "\n"); lines != 80 || strings.Contains(csv, "{{") || !regexp.MustCompile(`/search\?q=[a-z]{50},`).MatchString(csv) {
		t.Errorf("encode of a run's templated scenario, %d lines:\n%.400s", lines, csv)
	}

	// -rewrite rebuilds the same report from the folder, running nothing.
	os.Remove(filepath.Join(out, "report.md"))
	if code, stdout, stderr := runCLI(t, nil, "run", "-rewrite", out); code != 0 || !strings.Contains(stdout, "report: ") {
		t.Fatalf("rewrite: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "report.md")); string(again) != string(md) {
		t.Errorf("the rewritten report.md differs from the run's")
	}
	if code, _, stderr := runCLI(t, nil, "run", "-rewrite", dir); code != 2 || !strings.Contains(stderr, "holds no run") {
		t.Errorf("rewrite of a folder without a run: exit %d, stderr %q", code, stderr)
	}
}

func TestRunBadPlan(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte("target: http://127.0.0.1:9\nscenarios:\n  - target: GET ${target}/\n    rate: 5/s\n    duration: 2 seconds\n"), 0o644)
	for _, args := range [][]string{{"run", plan}, {"run", filepath.Join(dir, "missing.yaml")}, {"run"}} {
		code, _, stderr := runCLI(t, nil, args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	_, _, stderr := runCLI(t, nil, "run", plan)
	if want := "plan.yaml:5: scenarios[0].duration: \"2 seconds\" is not a duration"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("an output folder was created for a bad plan")
	}
}

// TestRunSet: -set overrides plan variables (a matrix axis runs at the one
// value given); an unknown name is one line naming the known ones, exit 2.
func TestRunSet(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte("target: http://127.0.0.1:9\nvars: {duration: 2s}\nmatrix: {rate: [10, 20]}\nscenarios:\n  - {target: \"GET ${target}/\", rate: \"${rate}\", duration: \"${duration}\"}\n"), 0o644)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"run", "-check", plan}, 0, "2 steps", ""},
		{[]string{"run", "-check", "-set", "rate=1000", "-set", "duration=300s", plan}, 0, "1 step\n  step 1: rate=1000 (1 scenario: scenario1)", ""},
		{[]string{"run", "-check", "-set", "rte=5", plan}, 2, "", `plan.yaml: -set: the plan has no variable "rte" (known: duration, rate)`},
		{[]string{"run", "-check", "-set", "duration=forever", plan}, 2, "", `scenarios[0].duration: "forever" is not a duration`},
		{[]string{"run", "-check", "-set", "rate", plan}, 2, "", `invalid value "rate" for flag -set: want NAME=VALUE`},
	} {
		code, stdout, stderr := runCLI(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args[1:], code, stdout, stderr)
		}
		if tc.code == 2 && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: stderr is not one line: %q", tc.args[1:], stderr)
		}
	}
}

// TestRunCapacitySearch runs a capacity search on real components: a pool
// of 4 workers in front of a 100 ms origin carries 40 req/s, so the
// search, starting from the model's knee, must answer near that (judged
// with margins on both sides of the knee) and confirm it, and the report
// must lead with the answer.
func TestRunCapacitySearch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and runs about 20 s of load")
	}
	t.Setenv(asBinaryEnv, "1")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plan.yaml", `name: capacity
components:
  origin: {kind: origin, recipe: origin.json}
  proxy: {kind: proxy, config: proxy.yaml}
scenarios:
  - {name: search, target: "GET ${proxy.url}/search", rate: 20/s, duration: 2s, timeout: 3s}
thresholds: ["search: success > 99%"]
search: {scenario: search, rate: 5..200, precision: 10%}
`)
	write("proxy.yaml", `pools:
  default: {size: 4, overflow: 0, checkout_timeout: 100ms}
routes:
  - {name: search, path: /search*, upstream: "${origin.url}", pool: default, request_timeout: 2s}
`)
	write("origin.json", `{"stages": [{"at": 0, "status": 200, "latency": "100ms"}]}`)
	code, sum, stdout, stderr := runPlan(t, dir)
	if len(sum.Search) != 1 {
		t.Fatalf("%d search results, want 1", len(sum.Search))
	}
	s := sum.Search[0]
	t.Logf("answer %.1f req/s (model %.1f), %d probes: %+v", s.Rate, s.Predicted, len(s.Probes), s.Probes)
	// The progress names each probe as a step of the search, never as a
	// step "out of" the plan's one template step ("step 10/1").
	if !strings.Contains(stderr, "step 1 of the capacity search: ") || regexp.MustCompile(`step \d+/\d+:`).MatchString(stderr) {
		t.Errorf("progress during a search:\n%s", stderr)
	}
	// The pool's capacity is 4 workers / 100 ms = 40 req/s. The search
	// starts at the model's knee and bisects towards it, so its probes sit
	// near 40 req/s by design, where the pool is busy all the time and
	// the success ratio is on a knife edge (98.75% against the 99%
	// threshold at 40 req/s once, with other tests running). So probes are
	// judged only clearly away from the knee: at 34 req/s or less (85% of
	// capacity) a probe holds, unless the machine visibly stalled the
	// generator or the components (requests sent late, or answers slower
	// than the pool allows: checkout timeout + origin latency = 200 ms); at
	// 46 req/s or more (115%) it fails. Between the two, either verdict is
	// right. Every confirmation is judged, so the run exits 0 when the
	// first one holds and 1 when one failed (the search then confirms a
	// lower rate).
	const below, above = 34.0, 46.0
	wantCode, stalls := 0, 0
	for _, p := range s.Probes {
		if !p.Pass && p.Confirmation {
			wantCode = 1
		}
		if p.Pass && p.Rate >= above {
			t.Errorf("probe at %.1f req/s held, above the pool's capacity of 40 req/s by more than 15%%", p.Rate)
		}
		if p.Pass || p.Rate > below {
			continue
		}
		var sc *summary.ScenarioResult
		for _, st := range sum.Steps {
			if st.Name == p.Step && len(st.Scenarios) > 0 {
				sc = st.Scenarios[0]
			}
		}
		if sc == nil {
			t.Fatalf("no step %q for the failed probe", p.Step)
		}
		t.Logf("probe at %.1f req/s failed: %s (requests up to %.0f ms late, p99 %.0f ms)", p.Rate, p.Broken, 1000*sc.MaxLag, 1000*sc.Latency.P99.Seconds())
		if sc.MaxLag >= 0.02 || sc.Latency.P99.Seconds() > 0.22 || strings.HasPrefix(p.Broken, "the generator could not keep its schedule") {
			stalls++
		} else {
			t.Errorf("probe at %.1f req/s (85%% of capacity or less) failed (%s) on a machine that kept up: requests at most %.0f ms late, p99 %.0f ms", p.Rate, p.Broken, 1000*sc.MaxLag, 1000*sc.Latency.P99.Seconds())
		}
	}
	if code != wantCode {
		t.Fatalf("exit %d, want %d (0 when the first confirmation holds)\nstdout: %s\nstderr: %s", code, wantCode, stdout, stderr)
	}
	// The answer: below 46 req/s, and, unless the machine stalled a probe
	// clearly below the knee, at least 30 req/s (the search's precision
	// under a knee that may have failed anywhere from 34 req/s) and
	// confirmed.
	if s.Rate >= above || stalls == 0 && (s.Rate < 30 || !s.Confirmed) {
		t.Errorf("answer %.1f req/s (confirmed %v), want 30-46 req/s confirmed", s.Rate, s.Confirmed)
	}
	if s.Predicted < 36 || s.Predicted > 41 {
		t.Errorf("the model's knee %.1f req/s, want just under 40", s.Predicted)
	}
	if s.Probes[0].Rate != s.Predicted {
		t.Errorf("the search started at %.1f, not at the model's knee %.1f", s.Probes[0].Rate, s.Predicted)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "out", "report.md"))
	if !strings.Contains(string(md), "**Capacity** (the highest rate that meets the thresholds): ") || !strings.Contains(string(md), "### Capacity search") {
		t.Errorf("report.md does not lead with the capacity:\n%.600s", md)
	}
	if !strings.Contains(string(md), "Knee: success against rate") {
		t.Errorf("report.md has no knee chart")
	}
}
