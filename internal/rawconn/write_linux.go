//go:build !loadlab_portable

package rawconn

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// WriteSome writes as much of p to the non-blocking socket fd as it takes
// now, with raw write system calls, retrying on EINTR. It returns the bytes
// written and 0 when all of p went, EAGAIN when the socket buffer filled
// first (wait until writable and call again with the rest), or the error.
func WriteSome(fd uintptr, p []byte) (int, syscall.Errno) { return sendSome(fd, p, 0) }

// sendSome is WriteSome with send flags (MSG_MORE): a write when there are
// none, else sendto (unix's number: see Stamped.Recv).
func sendSome(fd uintptr, p []byte, flags int) (int, syscall.Errno) {
	done := 0
	for done < len(p) {
		var n uintptr
		var e syscall.Errno
		if flags == 0 {
			n, _, e = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
		} else {
			n, _, e = syscall.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done), uintptr(flags), 0, 0)
		}
		switch e {
		case 0:
			done += int(n)
		case syscall.EINTR:
		default:
			return done, e
		}
	}
	return done, 0
}
