//go:build linux && (arm64 || riscv64 || loong64) && !loadlab_portable

package main

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// epollWait is epoll_wait as a raw system call (see the mode's comment):
// epoll_pwait without a signal mask, the same call, since these systems
// have no epoll_wait.
func epollWait(ep int, events []unix.EpollEvent, ms int) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(ms), 0, 0)
	return int(n), e
}
