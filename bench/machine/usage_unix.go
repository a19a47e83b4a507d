//go:build unix

package machine

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// CPUTime is the process's user and system CPU time so far (0 where
// getrusage fails).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MaxRSS is the peak resident memory of a process that has exited, in kB
// (getrusage's ru_maxrss, which macOS counts in bytes); 0 when unknown.
func MaxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
