package writeup_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/writeup"
	"github.com/loadlab/loadlab/internal/load"
)

// A closed loop of 4, 16 and 32 users (a real run): the comparison shows
// each step's users and the throughput they got where a paced step shows
// its rate, the method and the steps say "by N users", and the knee
// charts plot throughput and p99 against the users.
func TestClosedLoopReportSpeaksInUsers(t *testing.T) {
	sum, dir, md, html := writeIn(t, "users", "")
	if !strings.Contains(md, "| Configuration | Load (rate, or users and throughput) |") || strings.Contains(md, "| RPS |") {
		t.Errorf("the comparison's load column is not about users:\n%s", md[:min(len(md), 1200)])
	}
	for _, st := range sum.Steps {
		sc := st.Scenarios[0]
		cell := fmt.Sprintf("%d users, %s req/s", sc.Users, load.FmtRate(sc.Throughput))
		if !strings.Contains(md, "| "+st.Name+" | "+cell+" |") || !strings.Contains(html, "<td>"+cell+"</td>") {
			t.Errorf("no comparison row for %s with %q", st.Name, cell)
		}
		if !strings.Contains(md, fmt.Sprintf("` by %d users (a closed loop: each user sends its next request when its answer came)\n", sc.Users)) {
			t.Errorf("step %s does not say it ran by %d users", st.Name, sc.Users)
		}
	}
	if !strings.Contains(md, "- **page**: `GET ${proxy.url}/page` by 4, 16, 32 users (a closed loop") {
		t.Errorf("the method does not name the users")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "charts", "knee-page-throughput.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), ">users<") || !strings.Contains(string(svg), "requests/s answered") {
		t.Errorf("the throughput knee chart is not against users")
	}
	if cs := writeup.KneeCharts(sum); len(cs) != 2 || cs[0].X.Label != "users" || len(cs[0].Series) != 2 || len(cs[0].Series[0].Points) != 3 {
		t.Errorf("knee charts for the archive's pages: %+v", cs)
	}
}

// The calibration a run made (a real one, of a closed loop) is said in
// the model section with its cost, as summary.json recorded it.
func TestReportSaysTheCalibrationsCost(t *testing.T) {
	sum, _, md, _ := writeIn(t, "users-calibrated", "")
	if len(sum.Calibrations) != 1 || sum.Calibrations[0].Requests == 0 {
		t.Fatalf("the fixture recorded %+v", sum.Calibrations)
	}
	c := sum.Calibrations[0]
	want := fmt.Sprintf("the calibration sent requests of its own, not counted in any step: page (`%s`) before step %q: %d requests, up to %s req/s, in ", c.Target, c.Before, c.Requests, load.FmtRate(c.HighestRate))
	model := md[strings.Index(md, "## Against the model"):]
	if !strings.Contains(model, want) {
		t.Errorf("the model section does not say %q:\n%s", want, model[:min(len(model), 800)])
	}
}

// The terminal's brief of configurations compared at several numbers of
// users has a row per number of users.
func TestBriefRowsAreUsers(t *testing.T) {
	sum, _, _, _ := writeIn(t, "users-pools", "")
	b := writeup.Brief(sum)
	for _, row := range []string{"\n  4 users ", "\n  32 users "} {
		if !strings.Contains(b, row) {
			t.Errorf("the brief has no row %q:\n%s", row, b)
		}
	}
}
