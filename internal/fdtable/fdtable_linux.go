//go:build !loadlab_portable

package fdtable

import (
	"syscall"
)

// Size is the table Reserve asks for by default: 65,536 descriptors, about
// 530 kB of kernel memory, more connections than a 2-core machine serves.
const Size = 1 << 16

// Reserve grows the descriptor table to hold n descriptors (capped by the
// RLIMIT_NOFILE soft limit), unless it already does. It duplicates a
// descriptor of /dev/null to the lowest free descriptor at or above n-1,
// which never replaces one in use, and closes both: the table stays
// grown. It returns the size reserved (0 if nothing could be).
func Reserve(n int) int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && uint64(n) > lim.Cur {
		n = int(lim.Cur)
	}
	if n <= 1 {
		return 0
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(null)
	fd, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(null), syscall.F_DUPFD_CLOEXEC, uintptr(n-1))
	if e != 0 {
		return 0
	}
	syscall.Close(int(fd))
	return n
}
