//go:build !linux || loadlab_portable

package attack

import "time"

// paceTimer is a Linux timerfd (see pacetimer_linux.go); elsewhere the
// pacer uses a Go timer.
type paceTimer struct{}

func newPaceTimer() *paceTimer                                       { return nil }
func (t *paceTimer) wait(d time.Duration) bool                       { return false }
func (t *paceTimer) sleepUntil(at, then time.Time) (time.Time, bool) { return at, false }
func (t *paceTimer) interrupt()                                      {}
func (t *paceTimer) close()                                          {}

// PreciseSupported says whether this build has the precise pacer: it
// needs the paceTimer, a Linux timerfd; here every attack is batched.
const PreciseSupported = false
