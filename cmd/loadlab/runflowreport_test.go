package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// journeyFlow is the example journey (examples/006-log-in-and-browse)
// with short think times, no latency check (the machine may be loaded),
// and one check that always fails without stopping the session: /home
// answers 200, never 201.
const journeyFlow = `name: journey
data: users.csv
steps:
  - name: login
    request:
      method: POST
      url: ${origin.url}/login
      headers: {Content-Type: application/json}
      body: '{"user":"{{user}}","password":"{{password}}"}'
    capture:
      - {var: token, json: "$.token"}
    check:
      - {status: 200}
  - think: 10ms
  - group: browse
    steps:
      - name: home
        request:
          url: ${origin.url}/home
          headers: {Authorization: "Bearer {{token}}"}
        on_failure: continue
        check:
          - {status: 201}
      - name: search
        request:
          url: "${origin.url}/search?q={{query}}"
          headers: {Authorization: "Bearer {{token}}"}
        capture:
          - {var: items, json: "$.items[*].id"}
        check:
          - {status: 200}
      - loop: {over: items, as: item}
        steps:
          - name: item
            request:
              url: ${origin.url}/items/{{item}}
              headers: {Authorization: "Bearer {{token}}"}
            check:
              - {body_contains: price}
`

// journeyPlan runs journeyFlow against a loadlab origin with the
// example's token routes: 8 sessions (4/s for 2s), judged by thresholds
// on a step, the checks and the sessions.
const journeyPlan = `name: journey
components:
  origin:
    kind: origin
    recipe: origin.json
scenarios:
  - name: shoppers
    flow: flow.yaml
    rate: 4/s
    duration: 2s
cooldown: 0s
thresholds:
  - "login: p99 < 20s"
  - "check status 200 > 99%"
  - "check browse/home: status 201 > 50%"
  - "checks > 99%"
  - "sessions_failed < 1%"
  - "sessions_dropped < 1%"
`

// A plan's flow scenario is judged by thresholds on its steps, checks and
// sessions, counted from the run folder's results stream; the report
// shows the sessions, the steps in flow order and the checks; a rewrite
// of the folder shows them again from summary.json; run -check refuses a
// threshold naming a step the flow lacks.
func TestRunFlowThresholdsAndReport(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"origin.json", "users.csv"} {
		data, err := os.ReadFile(filepath.Join("../../examples/006-log-in-and-browse", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{"flow.yaml": journeyFlow, "plan.yaml": journeyPlan,
		"bad.yaml": strings.Replace(journeyPlan, `"login: p99 < 20s"`, `"logout: p99 < 20s"`, 1)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, code := runBinary(t, "", "run", "-check", filepath.Join(dir, "bad.yaml"))
	if want := `bad.yaml:13: thresholds: no scenario or flow step named "logout"`; code != 2 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("run -check of a bad threshold: exit %d: %q, want exit 2 and one line with %q", code, stderr, want)
	}

	out := filepath.Join(dir, "out")
	_, stderr, code = runBinary(t, "", "run", "-quiet", "-out", out, filepath.Join(dir, "plan.yaml"))
	if code != 1 {
		t.Fatalf("run: exit %d, want 1 (two thresholds fail): %s", code, stderr)
	}
	sum, err := summary.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, tr := range sum.Thresholds {
		verdicts[tr.Threshold] = map[bool]string{true: "pass", false: "fail"}[tr.Pass] + " " + tr.Measured
	}
	for th, want := range map[string]string{
		"check status 200 > 99%":              "pass 100.00%",
		"check browse/home: status 201 > 50%": "fail 0.00%",
		"checks > 99%":                        "fail 87.50%", // 56 of 64: 8 logins, 8 searches, 40 items pass; 8 homes fail
		"sessions_failed < 1%":                "pass 0.00%",
		"sessions_dropped < 1%":               "pass 0.00%",
	} {
		if verdicts[th] != want {
			t.Errorf("threshold %q: %q, want %q (all: %v)", th, verdicts[th], want, verdicts)
		}
	}
	if !strings.HasPrefix(verdicts["login: p99 < 20s"], "pass ") {
		t.Errorf("login: p99 < 20s: %q", verdicts["login: p99 < 20s"])
	}
	fl := sum.Steps[0].Scenarios[0].Flow
	if fl == nil {
		t.Fatal("summary.json has no flow figures")
	}
	js, _ := json.Marshal(fl)
	t.Logf("flow figures: %s", js)
	var names []string
	for _, st := range fl.Steps {
		names = append(names, st.Name)
	}
	if strings.Join(names, ",") != "login,browse/home,browse/search,browse/item" {
		t.Errorf("steps %v, want the flow's order", names)
	}
	if s := fl.Sessions; s.Started != 8 || s.Completed != 8 || s.Failed != 0 || s.Dropped != 0 {
		t.Errorf("sessions %+v, want 8 started and completed", s)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkFlowReport(t, string(report))
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), "<td>browse/search</td>") || !strings.Contains(string(html), "✗ browse/home: status 201") {
		t.Errorf("report.html lacks the steps or checks tables (%v)", err)
	}

	// Rewritten from summary.json; then from a summary.json written
	// before it kept the flows (their figures counted from the results
	// stream again, the steps in the order first seen, as they ran).
	for _, old := range []bool{false, true} {
		if old {
			sum.Steps[0].Scenarios[0].Flow = nil
			if err := summary.Write(out, sum); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(filepath.Join(out, "report.md")); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code = runBinary(t, "", "run", "-rewrite", out); code != 0 {
			t.Fatalf("rewrite: exit %d: %s", code, stderr)
		}
		report, err = os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		checkFlowReport(t, string(report))
	}
	if again, err := summary.Load(out); err != nil || again.Steps[0].Scenarios[0].Flow == nil {
		t.Errorf("the rewrite did not keep the flow's figures in summary.json (%v)", err)
	}
}

// checkFlowReport checks report.md's flow section: the sessions line, the
// steps table (8 sessions: 8 logins, homes and searches, 5 items each)
// and the checks table.
func checkFlowReport(t *testing.T, md string) {
	t.Helper()
	for _, want := range []string{
		"## Flows",
		"Sessions: 8 started, 8 completed, 0 failed, 0 dropped",
		"| Step | Requests | Success | p50 | p95 | p99 |",
		"| login | 8 | 100.00% |",
		"| browse/home | 8 | 100.00% |",
		"| browse/search | 8 | 100.00% |",
		"| browse/item | 40 | 100.00% |",
		"| Check | Passes | Fails | Passed |",
		"| ✓ login: status 200 | 8 | 0 | 100.00% |",
		"| ✗ browse/home: status 201 | 0 | 8 | 0.00% |",
		"| ✓ browse/item: body contains price | 40 | 0 | 100.00% |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if i, j := strings.Index(md, "| login |"), strings.Index(md, "| browse/item |"); i < 0 || j < i {
		t.Errorf("steps not in the flow's order")
	}
}

// A flow attack's results added to the archive keep each step's text
// report beside the sessions and checks (`loadlab report -by step`), which
// `archive show` and the run's page print.
func TestArchiveFlowResultsByStep(t *testing.T) {
	s, homes := loginSite(t)
	dir := t.TempDir()
	writeFlowFiles(t, dir, s.URL, map[string]string{"flow.yaml": loginFlow, "users.csv": "user,password\nann,secret\nmal,wrong\n"})
	out := filepath.Join(dir, "r.lll")
	if _, stderr, code := runBinary(t, "", "attack", "-flow", filepath.Join(dir, "flow.yaml"), "-rate", "10/s", "-duration", "400ms", "-output", out); code != 0 {
		t.Fatalf("attack: exit %d: %s", code, stderr)
	}
	if homes.Load() != 2 { // 4 sessions: ann's 2 browse, mal's 2 stop at login
		t.Fatalf("/home answered %d sessions, want 2", homes.Load())
	}
	db := filepath.Join(dir, "runs.db")
	added, stderr, code := runBinary(t, "", "archive", "add", "-db", db, out)
	if code != 0 {
		t.Fatalf("archive add: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(added), "\n")
	text, stderr, code := runBinary(t, "", "archive", "show", "-db", db, strings.TrimSpace(lines[len(lines)-1]))
	if code != 0 {
		t.Fatalf("archive show: exit %d: %s", code, stderr)
	}
	text = regexp.MustCompile(` +`).ReplaceAllString(text, " ")
	for _, want := range []string{"Sessions [started, completed, failed, interrupted, dropped] 4, 2, 2, 0, 0", "\nStep login\n", "\nStep browse/home\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("archive show lacks %q:\n%s", want, text)
		}
	}
	if i := strings.Index(text, "\nStep browse/home\n"); i >= 0 && !strings.Contains(text[i:], "Requests [total, rate, throughput] 2,") {
		t.Errorf("step home's report is not its 2 requests:\n%s", text[i:])
	}
}
