package report

import (
	"strings"
	"testing"
	"time"
)

func TestLagNote(t *testing.T) {
	for _, c := range []struct {
		lag, p50 time.Duration
		want     string
	}{
		{0, time.Millisecond, ""},
		{100 * time.Microsecond, time.Millisecond, ""}, // exactly 10%: not more
		{101 * time.Microsecond, 0, ""},
		{757_300 * time.Nanosecond, 950 * time.Microsecond, "schedule lag (p50 757µs) is 80% of the latency p50 (950µs)"},
		{30 * time.Microsecond, 200 * time.Microsecond, "(p50 30µs) is 15% of"},
	} {
		got := LagNote(c.lag, c.p50)
		if c.want == "" && got != "" || c.want != "" && (!strings.Contains(got, c.want) || !strings.Contains(got, "-pacer=precise")) {
			t.Errorf("LagNote(%v, %v) = %q, want %q", c.lag, c.p50, got, c.want)
		}
	}
}
