package writeup

import "testing"

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
	if len(secs) == 0 || secs[0].Title != "Comparison" || len(secs[0].Tables) == 0 {
		t.Errorf("the answer sections: %+v", secs)
	}
}
