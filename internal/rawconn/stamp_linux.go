//go:build !loadlab_portable

package rawconn

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// EnableStamps asks the kernel for the receive time of the bytes each read
// of socket fd returns (SO_TIMESTAMPNS), for Stamped.Recv. Linux turns
// timestamping on for the machine a moment after the first socket asks,
// so the first reads may come without one.
func EnableStamps(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
}

// Stamped holds the buffers of recvmsg calls that bring the kernel's
// receive timestamp; reuse one per connection (no allocation per read).
type Stamped struct {
	iov syscall.Iovec
	msg syscall.Msghdr
	oob [64]byte
}

// Recv is one raw recvmsg on fd into p (len(p) > 0): n bytes (0 at the end
// of the stream), rx the kernel's receive time of the bytes in Unix
// nanoseconds (0 when none came with them), or the errno (EAGAIN when
// nothing is there).
func (s *Stamped) Recv(fd uintptr, p []byte) (n int, rx int64, errno syscall.Errno) {
	s.iov.Base = &p[0]
	s.iov.SetLen(len(p))
	s.msg.Iov = &s.iov
	s.msg.Iovlen = 1
	s.msg.Control = &s.oob[0]
	s.msg.SetControllen(len(s.oob))
	// unix's number, not syscall's: 32-bit x86 has had recvmsg as a call
	// of its own since Linux 4.3, which syscall does not list (it goes
	// through socketcall there); the same number elsewhere.
	r, _, e := syscall.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
	s.iov.Base = nil // do not keep p alive
	if e != 0 {
		return 0, 0, e
	}
	return int(r), stampOf(s.oob[:s.msg.Controllen]), 0
}

// cmsgAlign is the alignment of control messages: the size of a C long
// (CMSG_ALIGN), 8 on 64-bit systems, 4 on 32-bit ones.
const cmsgAlign = int(unsafe.Sizeof(uintptr(0)))

// stampOf finds the SCM_TIMESTAMPNS in control messages (Unix ns, or 0).
func stampOf(oob []byte) int64 {
	for len(oob) >= syscall.SizeofCmsghdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < syscall.SizeofCmsghdr || l > len(oob) {
			break
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && l >= syscall.SizeofCmsghdr+int(unsafe.Sizeof(syscall.Timespec{})) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&oob[syscall.SizeofCmsghdr]))
			return ts.Nano()
		}
		oob = oob[(l+cmsgAlign-1)&^(cmsgAlign-1):]
	}
	return 0
}
