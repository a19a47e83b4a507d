package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/load"
)

// closedWaitProxy is closedProxy whose checkout waits 2 s: 32 users on
// its 8 workers wait about 150 ms for one, and are not refused even on a
// loaded machine.
const closedWaitProxy = `pools:
  default: {size: 8, overflow: 0, checkout_timeout: 2s, timeout_status: 503, manager: concurrent}
routes:
  - {name: page, path: /*, upstream: "${origin.url}", pool: default, request_timeout: 3s}
`

// TestRunClosedLoopReport: the written report of a real closed-loop run
// (4 and 32 users, each sending its next request when its answer came,
// through the playground proxy's 8 workers in front of a 50 ms origin)
// speaks in users: the comparison shows each step's users and the
// throughput they were answered at (not "RPS 0"), the method and the
// steps say "by N users", the finding says where throughput stopped
// following the users, checked by Little's law, and the knee charts are
// drawn against users. The scenario is calibrated as a black box, and
// summary.json and the model section say what that calibration cost: as
// many requests as its probes sent, as its log printed them. A rewrite of
// the folder as an older loadlab wrote it (no users kept) reads them from
// the plan's copy and gives the same report.
func TestRunClosedLoopReport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes, calibrates and runs 4 s of load")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"proxy.yaml": closedWaitProxy, "origin.json": closedOrigin, "plan.yaml": `name: users
components:
  origin: {kind: origin, recipe: origin.json}
  proxy: {kind: proxy, config: proxy.yaml}
matrix:
  users: [4, 32]
step_name: "${users} users"
scenarios:
  - {name: page, target: "GET ${proxy.url}/page", rate: 0, workers: "${users}", duration: 2s, timeout: 5s, calibrate: true}
`})
	code, sum, stdout, stderr := runPlan(t, dir, "-fit-step", "300ms")
	if code != 0 || len(sum.Steps) != 2 {
		t.Fatalf("exit %d, %d steps\n%s", code, len(sum.Steps), stderr)
	}
	out := filepath.Join(dir, "out")
	md := readText(t, filepath.Join(out, "report.md"))
	html := readText(t, filepath.Join(out, "report.html"))

	// summary.json: each step's users.
	for i, users := range []int{4, 32} {
		sc := sum.Steps[i].Scenarios[0]
		if sc.Users != users || !sc.Closed() || sc.Requests == 0 {
			t.Fatalf("step %q: users %d, %d requests; want %d users", sum.Steps[i].Name, sc.Users, sc.Requests, users)
		}
		// The comparison row: the users and the throughput summary.json
		// holds, where a paced step shows its rate.
		row := fmt.Sprintf("| %d users | %d users, %s req/s |", users, users, load.FmtRate(sc.Throughput))
		if !strings.Contains(md, row) {
			t.Errorf("report.md has no comparison row %q", row)
		}
		if cell := fmt.Sprintf("<td>%d users, %s req/s</td>", users, load.FmtRate(sc.Throughput)); !strings.Contains(html, cell) {
			t.Errorf("report.html has no comparison cell %q", cell)
		}
	}
	for _, want := range []string{
		"| Configuration | Load (rate, or users and throughput) |",
		"by 4, 32 users (a closed loop: each user sends its next request when its answer came) for 2s",
		"by 32 users (a closed loop",
		"![Knee: throughput against users](charts/knee-page-throughput.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, unwanted := range []string{"| RPS |", " at 0 for ", "` at 0\n", "beyond the loads tried", "req/s, the lowest rate"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("report.md still says %q", unwanted)
		}
	}
	if !strings.Contains(html, "Throughput of page against its users") || !strings.Contains(html, "Load (rate, or users and throughput)") {
		t.Errorf("report.html has no knee chart against users or no load column")
	}

	// The finding, in users, and true by Little's law: users =
	// throughput × response time (no think time).
	knee := regexp.MustCompile(`page's throughput (stopped rising beyond 4 users|rose far less than its users between 4 users and 32 users)[^\n]*?\(Little's law: 32 users ≈ ([0-9.,]+) req/s × ([0-9.]+m?s) = ([0-9.]+)\)\. The knee lies at about ([0-9]+) users`)
	m := knee.FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("report.md has no knee in users:\n%s", md[:min(len(md), 1500)])
	}
	if n, _ := strconv.ParseFloat(m[4], 64); n < 0.75*32 || n > 1.25*32 {
		t.Errorf("Little's law gives %s users for 32: %q", m[4], m[0])
	}
	// 8 workers serve the 50 ms origin: the knee is at about 8 users. A
	// loaded machine slows the lightest step's answers, which moves the
	// estimate up, not down to the 4 users the plan tried.
	if k, _ := strconv.Atoi(m[5]); k < 6 || k > 12 {
		t.Errorf("knee at %d users, want about 8 (the pool's workers): %q", k, m[0])
	}
	if !strings.Contains(stdout, m[0]) {
		t.Errorf("the terminal's summary does not say the knee in users:\n%s", stdout)
	}

	// The calibration's cost: what its probes sent, as its log printed
	// them, recorded in summary.json and said in the model section.
	if len(sum.Calibrations) != 1 {
		t.Fatalf("%d calibrations recorded, want 1\n%s", len(sum.Calibrations), stderr)
	}
	c := sum.Calibrations[0]
	var sent uint64
	probes := regexp.MustCompile(`(?m)^calibration: .* for .*: ([0-9]+) sent,`).FindAllStringSubmatch(stderr, -1)
	for _, p := range probes {
		n, _ := strconv.ParseUint(p[1], 10, 64)
		sent += n
	}
	if len(probes) < 3 || c.Requests != sent || c.Scenario != "page" || c.Before != "4 users" || c.HighestRate <= 0 || c.Took <= 0 || !strings.HasPrefix(c.Target, "GET http://127.0.0.1:") {
		t.Errorf("calibration recorded as %+v; its %d probes sent %d requests\n%s", c, len(probes), sent, stderr)
	}
	if want := fmt.Sprintf("page (`%s`) before step \"4 users\": %d requests, up to %s req/s", c.Target, c.Requests, load.FmtRate(c.HighestRate)); !strings.Contains(md, want) {
		t.Errorf("report.md does not say the calibration's cost %q", want)
	}

	// A rewrite of the folder as a loadlab that kept no users wrote it.
	dropUsers(t, out)
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", out); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut)
	}
	if again := readText(t, filepath.Join(out, "report.md")); again != md {
		t.Errorf("the rewrite of the folder without users differs from the run's report")
	}
}

func readText(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
