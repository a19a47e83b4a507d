package runblock

import (
	"strings"
	"testing"
	"time"
)

// A machine that stalled the target as well as the generator: the run's
// lag is a small share of its own inflated p99, but a large one of what
// its peers measured; JudgeAmong names it, Judge alone does not.
func TestJudgeAmongPeers(t *testing.T) {
	peer := func(lag, p99 time.Duration) *Health { h := LagHealth(0, lag, p99); return &h }
	quiet := []*Health{peer(300*time.Microsecond, 20*time.Millisecond), peer(500*time.Microsecond, 23*time.Millisecond),
		peer(200*time.Microsecond, 21*time.Millisecond), nil, peer(time.Duration(Unknown), 0)}
	stalled := peer(18*time.Millisecond, 335*time.Millisecond)
	typical := TypicalP99(append(quiet, stalled))
	if typical != 22*time.Millisecond { // the median of 20, 21, 23 and 335 ms
		t.Fatalf("typical p99 %v, want 22ms", typical)
	}
	if got := stalled.LatencyP99(); got < 334*time.Millisecond || got > 336*time.Millisecond {
		t.Errorf("LatencyP99 %v, want 335ms", got)
	}
	if noisy, _ := stalled.Judge(); noisy {
		t.Fatal("Judge alone should not see it (5% of its own p99)")
	}
	noisy, why := stalled.JudgeAmong(typical)
	if !noisy || !strings.Contains(why, "18ms") || !strings.Contains(why, "82% of the latency p99 its peers typically measured (22ms)") {
		t.Errorf("JudgeAmong = %v %q", noisy, why)
	}
	for i, h := range quiet[:3] {
		if noisy, why := h.JudgeAmong(typical); noisy {
			t.Errorf("quiet run %d noisy: %s", i, why)
		}
	}
	// its own share still counts first, and no peers is Judge alone
	lagged := peer(30*time.Millisecond, 60*time.Millisecond)
	if noisy, why := lagged.JudgeAmong(0); !noisy || !strings.Contains(why, "50% of its latency p99") {
		t.Errorf("own share: %v %q", noisy, why)
	}
	if noisy, _ := stalled.JudgeAmong(0); noisy {
		t.Error("without peers the stalled run is judged on its own share")
	}
	if TypicalP99(nil) != 0 || TypicalP99([]*Health{quiet[4]}) != 0 {
		t.Error("no p99 known: typical 0")
	}
}
