//go:build !loadlab_portable

package probe

import (
	"syscall"
	"time"
)

// selfCPU is this process's CPU time (user and system, every thread), to
// the microsecond (getrusage).
func selfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
