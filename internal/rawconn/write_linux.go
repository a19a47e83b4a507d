package rawconn

import (
	"syscall"
	"unsafe"
)

// WriteSome writes as much of p to the non-blocking socket fd as it takes
// now, with raw write system calls, retrying on EINTR. It returns the bytes
// written and 0 when all of p went, EAGAIN when the socket buffer filled
// first (wait until writable and call again with the rest), or the error.
func WriteSome(fd uintptr, p []byte) (int, syscall.Errno) {
	done := 0
	for done < len(p) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
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
