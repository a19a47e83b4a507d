package rawconn

import (
	"syscall"
	"time"
	"unsafe"
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
	r, _, e := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
	s.iov.Base = nil // do not keep p alive
	if e != 0 {
		return 0, 0, e
	}
	return int(r), stampOf(s.oob[:s.msg.Controllen]), 0
}

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
		oob = oob[(l+7)&^7:]
	}
	return 0
}

// Arrival turns a receive timestamp (Unix ns, from Recv) into a time on
// now's monotonic clock, so it can be subtracted from other time.Now
// values: now less the stamp's age, the age clamped to [0, maxAge]. Zero
// when rx is 0 or older than maxAge (a stale or foreign stamp).
func Arrival(rx int64, now time.Time, maxAge time.Duration) time.Time {
	if rx == 0 {
		return time.Time{}
	}
	age := time.Duration(now.UnixNano() - rx)
	if age > maxAge {
		return time.Time{}
	}
	return now.Add(-max(age, 0))
}
