//go:build linux

package serve

import (
	"io"
	"net"
	"os"
	"syscall"

	"github.com/loadlab/loadlab/internal/rawconn"
)

// stamper reads request heads with recvmsg and the kernel's receive time
// (SO_TIMESTAMPNS): the time the request's last bytes reached the socket,
// before any wait of the server's threads for a CPU. A latency measured
// from it (see reqCtx.Received) is the one the client sees.
type stamper struct {
	rc  syscall.RawConn
	buf rawconn.Stamped
	p   []byte
	n   int
	rx  int64
	err syscall.Errno
	fn  func(fd uintptr) bool
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
	if err := rc.Control(func(fd uintptr) { serr = rawconn.EnableStamps(int(fd)) }); err != nil || serr != nil {
		return nil
	}
	s := &stamper{rc: rc}
	s.fn = s.recv
	return s
}

func (s *stamper) recv(fd uintptr) bool {
	for {
		s.n, s.rx, s.err = s.buf.Recv(fd, s.p)
		switch s.err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		return true
	}
}

// read reads into p; rx is the kernel's receive time of the bytes in Unix
// nanoseconds (0 when none came with them; see rawconn.Arrival).
func (s *stamper) read(p []byte) (n int, rx int64, err error) {
	if len(p) == 0 {
		return 0, 0, nil
	}
	s.p, s.n, s.rx, s.err = p, 0, 0, 0
	rerr := s.rc.Read(s.fn)
	s.p = nil
	switch {
	case rerr != nil:
		return 0, 0, rerr
	case s.err != 0:
		return 0, 0, os.NewSyscallError("recvmsg", s.err)
	case s.n == 0:
		return 0, 0, io.EOF
	}
	return s.n, s.rx, nil
}
