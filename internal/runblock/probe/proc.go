package probe

import (
	"os"

	"github.com/prometheus/procfs"
)

// ClockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const ClockTicks = 100

// procFS reads /proc; nil where there is none.
var procFS = func() *procfs.FS {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil
	}
	return &fs
}()

// Machine is the machine's CPU time so far, all cores summed, in seconds
// (only differences and ratios of two readings mean something).
type Machine struct {
	Busy  float64 // all but idle and iowait (steal included)
	Steal float64 // taken by a hypervisor
	Total float64
}

// ReadMachine reads the machine's CPU times from /proc/stat.
func ReadMachine() (Machine, error) {
	if procFS == nil {
		return Machine{}, os.ErrNotExist
	}
	st, err := procFS.Stat()
	if err != nil {
		return Machine{}, err
	}
	c := st.CPUTotal
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal + c.Guest + c.GuestNice
	return Machine{Busy: busy, Steal: c.Steal, Total: busy + c.Idle + c.Iowait}, nil
}

// ReadProc returns a process's CPU time in clock ticks (ClockTicks a
// second) and its resident memory in bytes, from /proc/<pid>/stat.
func ReadProc(pid int) (ticks, rss float64, err error) {
	if procFS == nil {
		return 0, 0, os.ErrNotExist
	}
	p, err := procFS.Proc(pid)
	if err != nil {
		return 0, 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, 0, err
	}
	return float64(st.UTime + st.STime), float64(st.ResidentMemory()), nil
}
