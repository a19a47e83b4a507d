// Package testwait is for tests that must wait for something they cannot
// be told about directly: a count reaching a value, a goroutine or server
// reaching a state, an entry in the kernel's tables. Instead of sleeping a
// guessed time (too short on a busy machine, too long everywhere else),
// a test polls a condition until it holds, with a deadline that is only
// reached when the behaviour is broken, so it can be generous.
//
// Prefer a real event when there is one (a channel closed by the code
// under test, a sync.WaitGroup, a callback): polling is for state that can
// only be read.
package testwait

import (
	"testing"
	"time"
)

// Poll intervals: the first checks come quickly, then the interval backs
// off so a long wait does not spin.
const (
	firstPoll = time.Millisecond
	maxPoll   = 20 * time.Millisecond
)

// Until calls cond until it returns true or timeout has passed, and
// reports whether it returned true. cond is called at least once, and once
// more at the deadline, so a condition that came true while the caller was
// kept off the CPU is not reported as a timeout.
func Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	wait := firstPoll
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t.Reset(min(wait, left))
		<-t.C
		wait = min(2*wait, maxPoll)
	}
}

// Eventually fails the test with "timed out after TIMEOUT waiting for
// WHAT" when cond has not returned true within timeout. Like t.Fatal it
// must be called from the goroutine running the test; cond runs there too
// and may itself call t.Fatal.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}
