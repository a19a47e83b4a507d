//go:build linux && !(arm64 || riscv64 || loong64) && !loadlab_portable

package main

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// epollWait is epoll_wait as a raw system call (see the mode's comment).
func epollWait(ep int, events []unix.EpollEvent, ms int) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(ms), 0, 0)
	return int(n), e
}
