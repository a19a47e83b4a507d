package main

import (
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

func TestThresholdMessageNamesFailures(t *testing.T) {
	ths := []summary.ThresholdResult{
		{Threshold: "success > 0.95", Step: "overflow 69/s", Scenario: "search", Measured: "0.27", Pass: false},
		{Threshold: "success > 0.95", Step: "fixed 69/s", Scenario: "search", Measured: "0.952", Pass: true},
		{Threshold: "success > 0.95", Step: "overflow 80/s", Scenario: "search", Measured: "0.17", Pass: false},
		{Threshold: "success > 0.95", Step: "fixed 80/s", Scenario: "search", Measured: "0.83", Pass: false},
		{Threshold: "p99 < 2s", Step: "overflow 80/s", Scenario: "news", Measured: "3.1s", Pass: false},
	}
	want := "4 of 5 threshold checks failed: success > 0.95 (overflow 69/s search: 0.27, overflow 80/s search: 0.17 and 1 more); p99 < 2s (overflow 80/s news: 3.1s). Exit code 1 means a threshold was crossed (setup errors exit 2); see the report's Thresholds section"
	if got := thresholdMessage(ths); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
