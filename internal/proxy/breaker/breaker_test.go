package breaker

import (
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func admitted(b *Breaker, n int) (k int) { // how many of n requests pass
	for i := 0; i < n; i++ {
		if b.Allow() {
			k++
			b.Record(false)
		}
	}
	return k
}

func trip(t *testing.T, b *Breaker, threshold int) {
	t.Helper()
	for i := 0; i <= threshold; i++ {
		if !b.Allow() {
			t.Fatalf("rejected before tripping, at error %d", i)
		}
		b.Record(true)
	}
	if s := b.Snapshot().State; s != "open" {
		t.Fatalf("state %s after %d errors, want open", s, threshold+1)
	}
}

func TestRampRecovery(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Config{Window: time.Second, Threshold: 3, Mode: Ramp, Now: c.now})
	// Errors at the threshold do not open it.
	for i := 0; i < 3; i++ {
		b.Allow()
		b.Record(true)
	}
	if b.Snapshot().State != "closed" {
		t.Fatal("opened at the threshold, want above it")
	}
	c.add(time.Second) // new window
	trip(t, b, 3)
	steps := []struct {
		state string
		pct   int
	}{{"open", 0}, {"recovering", 20}, {"recovering", 60}, {"closed", 100}}
	for i, st := range steps {
		if i > 0 {
			c.add(time.Second)
		}
		s := b.Snapshot()
		if s.State != st.state || s.Throughput != st.pct {
			t.Fatalf("window %d: %s %d%%, want %s %d%%", i, s.State, s.Throughput, st.state, st.pct)
		}
		if got := admitted(b, 100); got != st.pct {
			t.Fatalf("window %d: admitted %d of 100, want %d", i, got, st.pct)
		}
	}
	if tr := b.Snapshot().Transitions; tr["closed->open"] != 1 || tr["open->recovering"] != 1 || tr["recovering->closed"] != 1 {
		t.Fatalf("transitions %v", tr)
	}
}

func TestRampRelapse(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Config{Window: time.Second, Threshold: 1, Mode: Ramp, Now: c.now})
	trip(t, b, 1)
	c.add(time.Second)
	if s := b.Snapshot(); s.Throughput != 20 {
		t.Fatalf("throughput %d, want 20", s.Throughput)
	}
	fails := 0
	for i := 0; i < 50 && fails < 2; i++ {
		if b.Allow() {
			b.Record(true)
			fails++
		}
	}
	if s := b.Snapshot(); s.State != "open" || s.Throughput != 0 {
		t.Fatalf("after failing ramp window: %+v", s)
	}
}

func TestHalfOpenProbes(t *testing.T) {
	tests := []struct {
		name      string
		probeFail bool
		want      string
	}{
		{"probes succeed", false, "closed"},
		{"probe fails", true, "open"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{t: time.Unix(1000, 0)}
			b := New(Config{Window: time.Second, Threshold: 2, Mode: HalfOpen, OpenFor: 500 * time.Millisecond, Probes: 2, Now: c.now})
			trip(t, b, 2)
			c.add(499 * time.Millisecond)
			if b.Allow() {
				t.Fatal("admitted while open")
			}
			c.add(time.Millisecond)
			admittedProbes := 0
			for i := 0; i < 3; i++ {
				if b.Allow() {
					admittedProbes++
				}
			}
			if admittedProbes != 2 {
				t.Fatalf("%d probes admitted, want 2", admittedProbes)
			}
			b.Record(tc.probeFail)
			b.Record(false)
			if s := b.Snapshot().State; s != tc.want {
				t.Fatalf("state %s, want %s", s, tc.want)
			}
		})
	}
}

func TestLongIdleIsCheap(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Config{Window: time.Millisecond, Threshold: 1, Now: c.now})
	c.add(24 * time.Hour)
	start := time.Now()
	b.Allow()
	if time.Since(start) > 50*time.Millisecond {
		t.Fatal("rolling a day of idle windows was slow")
	}
}

func TestForgetFreesProbe(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	b := New(Config{Window: time.Second, Threshold: 0, Mode: HalfOpen, OpenFor: time.Second, Probes: 1, Now: c.now})
	trip(t, b, 0)
	c.add(time.Second)
	if !b.Allow() || b.Allow() {
		t.Fatal("want one probe")
	}
	b.Forget() // the probe's client left
	if !b.Allow() {
		t.Fatal("probe slot not released")
	}
	b.Record(false)
	if s := b.Snapshot().State; s != "closed" {
		t.Fatalf("state %s, want closed", s)
	}
}
