//go:build linux

package serve

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// stamper reads request heads with recvmsg and the kernel's receive time
// (SO_TIMESTAMPNS): the time the request's last bytes reached the socket,
// before any wait of the server's threads for a CPU. A latency measured
// from it (see reqCtx.Received) is the one the client sees.
type stamper struct {
	rc   syscall.RawConn
	p    []byte
	oob  [64]byte
	n    int
	oobn int
	err  syscall.Errno
	fn   func(fd uintptr) bool
}

// newStamper turns receive timestamps on for nc; nil if it cannot.
func newStamper(nc net.Conn) *stamper {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return nil
	}
	s := &stamper{rc: rc}
	s.fn = s.recv
	return s
}

func (s *stamper) recv(fd uintptr) bool {
	for {
		iov := syscall.Iovec{Base: &s.p[0]}
		iov.SetLen(len(s.p))
		msg := syscall.Msghdr{Iov: &iov, Iovlen: 1, Control: &s.oob[0]}
		msg.SetControllen(len(s.oob))
		n, _, e := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&msg)), 0)
		switch e {
		case 0:
			s.n, s.oobn = int(n), int(msg.Controllen)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.err = e
		return true
	}
}

// read reads into p; at is the kernel's receive time of the bytes (zero
// when none came with them).
func (s *stamper) read(p []byte) (n int, at time.Time, err error) {
	if len(p) == 0 {
		return 0, time.Time{}, nil
	}
	s.p, s.n, s.oobn, s.err = p, 0, 0, 0
	rerr := s.rc.Read(s.fn)
	s.p = nil
	switch {
	case rerr != nil:
		return 0, time.Time{}, rerr
	case s.err != 0:
		return 0, time.Time{}, os.NewSyscallError("recvmsg", s.err)
	case s.n == 0:
		return 0, time.Time{}, io.EOF
	}
	return s.n, stampOf(s.oob[:s.oobn]), nil
}

// stampOf finds the SCM_TIMESTAMPNS in a control message.
func stampOf(oob []byte) time.Time {
	for len(oob) >= syscall.SizeofCmsghdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < syscall.SizeofCmsghdr || l > len(oob) {
			break
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && l >= syscall.SizeofCmsghdr+16 {
			ts := (*syscall.Timespec)(unsafe.Pointer(&oob[syscall.SizeofCmsghdr]))
			return time.Unix(ts.Sec, ts.Nsec)
		}
		oob = oob[cmsgAlign(l):]
	}
	return time.Time{}
}

func cmsgAlign(n int) int { return (n + 7) &^ 7 }
