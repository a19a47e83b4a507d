package testwait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	var calls atomic.Int64
	if !Until(10*time.Second, func() bool { return calls.Add(1) == 5 }) {
		t.Fatal("Until gave up on a condition that came true")
	}
	if n := calls.Load(); n != 5 {
		t.Errorf("cond called %d times, want 5 (it stops once true)", n)
	}
	start := time.Now()
	calls.Store(0)
	if Until(30*time.Millisecond, func() bool { calls.Add(1); return false }) {
		t.Fatal("Until reported a condition that never held")
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Errorf("gave up after %v, before the 30ms timeout", el)
	}
	if calls.Load() < 2 {
		t.Errorf("cond called %d times, want at least twice (first and at the deadline)", calls.Load())
	}
	if !Until(0, func() bool { return true }) {
		t.Error("a zero timeout still checks the condition once")
	}
}

// fakeTB records Fatalf instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = format
}

func TestEventually(t *testing.T) {
	f := &fakeTB{TB: t}
	Eventually(f, 10*time.Second, "a true condition", func() bool { return true })
	if f.failed != "" {
		t.Fatalf("failed on a true condition: %s", f.failed)
	}
	Eventually(f, 10*time.Millisecond, "a false condition", func() bool { return false })
	if f.failed == "" {
		t.Fatal("did not fail on a condition that never held")
	}
}
