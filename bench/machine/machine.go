// Package machine is what the benchmarks under bench/ print beside their
// figures about where they ran: the processors, the load average (the
// machine is often shared, and a figure measured under load cannot be
// judged without it) and the benchmark's own CPU time, which a loaded
// machine inflates less than the wall clock.
package machine

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/prometheus/procfs"
)

// Describe is one line about the machine, printed at the start of a
// benchmark's table: "2 CPUs (GOMAXPROCS 2), amd64; load average 1.79 1.12 0.73".
func Describe() string {
	return fmt.Sprintf("%d CPUs (GOMAXPROCS %d), %s; load average %s", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOARCH, LoadAvg())
}

// LoadAvg is the machine's load average over 1, 5 and 15 minutes
// ("1.79 1.12 0.73"), or "unknown" where /proc/loadavg cannot be read.
func LoadAvg() string {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return "unknown"
	}
	l, err := fs.LoadAvg()
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.2f %.2f %.2f", l.Load1, l.Load5, l.Load15)
}

// ChildCPU is the user and system CPU time of a process that has exited.
func ChildCPU(ps *os.ProcessState) time.Duration { return ps.UserTime() + ps.SystemTime() }
