package plan

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// flowPlan is the example journey's plan with the given thresholds, read
// from the example's folder (its flow, data file and origin recipe).
func flowPlan(t *testing.T, thresholds ...string) (*Plan, error) {
	t.Helper()
	const dir = "../../../examples/006-log-in-and-browse"
	data, err := os.ReadFile(dir + "/plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data) + "thresholds:\n"
	for _, th := range thresholds {
		src += "  - \"" + th + "\"\n"
	}
	return Parse("plan.yaml", dir, []byte(src))
}

func TestFlowThresholds(t *testing.T) {
	p, err := flowPlan(t, "login: p99 < 300ms", "shoppers: browse/search: p95 < 1s", "checks > 99%",
		"check status 200 > 99%", "check browse/item: body contains price >= 99%", "sessions_failed < 1%", "sessions_dropped < 1%", "shoppers: p99 < 2s")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][3]string{}
	for _, th := range p.Thresholds {
		got[th.Source] = [3]string{th.Scenario, th.Step, th.Key()}
	}
	want := map[string][3]string{
		"login: p99 < 300ms":                            {"", "login", "p99"},
		"shoppers: browse/search: p95 < 1s":             {"shoppers", "browse/search", "p95"},
		"checks > 99%":                                  {"", "", "checks"},
		"check status 200 > 99%":                        {"", "", "check status 200"},
		"check browse/item: body contains price >= 99%": {"", "", "check browse/item: body contains price"},
		"sessions_failed < 1%":                          {"", "", "sessions_failed"},
		"sessions_dropped < 1%":                         {"", "", "sessions_dropped"},
		"shoppers: p99 < 2s":                            {"shoppers", "", "p99"},
	}
	for src, w := range want {
		if got[src] != w {
			t.Errorf("%q: scenario, step, figure %q, want %q", src, got[src], w)
		}
	}
}

func TestFlowThresholdErrors(t *testing.T) {
	for th, want := range map[string]string{
		"logout: p99 < 300ms":          `no scenario or flow step named "logout"`,
		"shoppers: logout: p99 < 1s":   `no flow step named "logout" (known: browse/home, browse/item, browse/search, login)`,
		"check status 201 > 99%":       `no check named "status 201" (known: `,
		"login: checks > 99%":          `checks is a figure of the whole flow, not of a step`,
		"sessions_lost < 1%":           `unknown metric "sessions_lost"`,
		"check > 99%":                  `check needs a check's name`,
		"shoppers: login: latency < 1": `unknown metric "latency"`,
	} {
		_, err := flowPlan(t, th)
		var bi *badinput.Error
		if !errors.As(err, &bi) {
			t.Errorf("%q: got %v, want a *badinput.Error", th, err)
			continue
		}
		if bi.File != "plan.yaml" || bi.Line == 0 || !strings.Contains(err.Error(), "thresholds") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q (file %q line %d), want it to name plan.yaml, its line, thresholds and %q", th, err, bi.File, bi.Line, want)
		}
	}
}
