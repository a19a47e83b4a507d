package blackbox

import (
	"testing"
	"time"
)

// TestDropOutliers: one pause among 140 samples is dropped; a slow tail
// of 5% is the target's own and kept.
func TestDropOutliers(t *testing.T) {
	var pause, tail []time.Duration
	for i := range 140 {
		pause = append(pause, 50*time.Millisecond+time.Duration(i)*10*time.Microsecond)
		tail = append(tail, 50*time.Millisecond)
		if i%20 == 0 {
			tail[i] = 300 * time.Millisecond
		}
	}
	pause[70] = 313 * time.Millisecond
	if kept, n := dropOutliers(pause); n != 1 || len(kept) != 139 || quantile(kept, 1) > 52*time.Millisecond {
		t.Errorf("a lone pause: dropped %d, kept %d up to %v", n, len(kept), quantile(kept, 1))
	}
	if kept, n := dropOutliers(tail); n != 0 || len(kept) != 140 {
		t.Errorf("a 5%% slow tail: dropped %d, kept %d", n, len(kept))
	}
}
