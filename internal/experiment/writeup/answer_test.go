package writeup

import (
	"strings"
	"testing"
)

// A knee needs two rates the plan asked for: a sweep has one; the
// regression hunt's six builds at 100/s (measured 100.02/s to 100.12/s)
// have none.
func TestKneeChartsNeedTwoPlannedRates(t *testing.T) {
	if cs := KneeCharts(readSummary(t, "../testdata/sweep-summary.json")); len(cs) != 2 || len(cs[0].Series) == 0 {
		t.Errorf("a sweep's knee charts: %d", len(cs))
	}
	if cs := KneeCharts(readSummary(t, "../../archive/ingest/testdata/regression-hunt/summary.json")); cs != nil {
		t.Errorf("six builds at one rate have no knee, got %d charts", len(cs))
	}
	secs := AnswerSections(readSummary(t, "../testdata/sweep-summary.json"), nil)
	var titles []string
	for _, s := range secs {
		titles = append(titles, s.Title)
	}
	if len(secs) < 2 || secs[0].Title != "Answer" || secs[1].Title != "Comparison" || !strings.Contains(string(secs[1].HTML), "<table>") {
		t.Errorf("the answer sections: %q", titles)
	}
}
