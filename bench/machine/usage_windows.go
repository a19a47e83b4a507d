package machine

import (
	"os"
	"syscall"
	"time"
)

// CPUTime is the process's user and system CPU time so far (0 where
// GetProcessTimes fails).
func CPUTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	return ticks(kernel) + ticks(user)
}

// ticks is a span that a Filetime counts in 100 ns ticks (Filetime's own
// Nanoseconds counts from 1970, for dates).
func ticks(ft syscall.Filetime) time.Duration {
	return time.Duration(int64(ft.HighDateTime)<<32|int64(ft.LowDateTime)) * 100
}

// MaxRSS is 0: Windows does not keep a process's peak memory once it has
// exited.
func MaxRSS(ps *os.ProcessState) int64 { return 0 }
