package rawconn

import (
	"testing"
	"time"
)

func TestArrival(t *testing.T) {
	now := time.Now()
	ns := now.UnixNano()
	tests := []struct {
		name string
		rx   int64
		want time.Duration // before now; -1: zero time
	}{
		{"no stamp", 0, -1},
		{"5ms ago", ns - int64(5*time.Millisecond), 5 * time.Millisecond},
		{"in the future (clock step)", ns + int64(time.Millisecond), 0},
		{"older than maxAge", ns - int64(2*time.Second), -1},
	}
	for _, tt := range tests {
		got := Arrival(tt.rx, now, time.Second)
		if tt.want < 0 {
			if !got.IsZero() {
				t.Errorf("%s: %v, want zero", tt.name, got)
			}
			continue
		}
		if d := now.Sub(got); d != tt.want {
			t.Errorf("%s: %v before now, want %v", tt.name, d, tt.want)
		}
	}
}
