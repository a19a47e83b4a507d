//go:build linux

package serve

import (
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// rawIO reads and writes a lean connection with raw system calls on its
// non-blocking socket, through the runtime poller (syscall.RawConn), so
// deadlines and waiting work as with net.Conn but a read or write does not
// enter the scheduler's syscall state (which wakes sysmon): the approach of
// internal/attack's lean client (leanrawio_linux.go), reduced to plain
// Read and Write.
type rawIO struct {
	rc      syscall.RawConn
	nc      net.Conn
	p       []byte
	n       int
	errno   syscall.Errno
	readFn  func(fd uintptr) bool
	writeFn func(fd uintptr) bool
}

// newRawIO returns nil when nc is not a socket the raw path can serve.
func newRawIO(nc net.Conn) *rawIO {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawIO{rc: rc, nc: nc}
	r.readFn, r.writeFn = r.rawRead, r.rawWrite
	return r
}

func (r *rawIO) rawRead(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch e {
		case 0:
			r.n = int(n)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait in the poller until readable
		}
		r.errno = e
		return true
	}
}

func (r *rawIO) rawWrite(fd uintptr) bool {
	for len(r.p) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch e {
		case 0:
			r.n += int(n)
			r.p = r.p[n:]
			continue
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // socket buffer full: wait until writable
		}
		r.errno = e
		return true
	}
	return true
}

// Read reads into p as net.Conn's Read does (io.EOF at the end).
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.errno = p, 0, 0
	err := r.rc.Read(r.readFn)
	r.p = nil
	if err != nil {
		return 0, r.opError("read", err)
	}
	if r.errno != 0 {
		return 0, r.opError("read", os.NewSyscallError("read", r.errno))
	}
	if r.n == 0 {
		return 0, io.EOF
	}
	return r.n, nil
}

// Write writes all of p.
func (r *rawIO) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.errno = p, 0, 0
	err := r.rc.Write(r.writeFn)
	r.p = nil
	if err != nil {
		return r.n, r.opError("write", err)
	}
	if r.errno != 0 {
		return r.n, r.opError("write", os.NewSyscallError("write", r.errno))
	}
	return r.n, nil
}

func (r *rawIO) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: r.nc.LocalAddr(), Addr: r.nc.RemoteAddr(), Err: err}
}

// sendFileWithHead writes head (with MSG_MORE, so it leaves in the same
// segments as the body, like TCP_CORK without its two system calls), then
// up to n bytes of f from its current offset with sendfile. It returns the
// body bytes sent; ok is false when f cannot be used (nothing was sent).
func (r *rawIO) sendFileWithHead(head []byte, f *os.File, n int64) (sent int64, ok bool, err error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	src := -1
	if sc.Control(func(fd uintptr) { src = int(fd) }) != nil || src < 0 {
		return 0, false, nil
	}
	var werr syscall.Errno
	err = r.rc.Write(func(fd uintptr) bool {
		for len(head) > 0 {
			m, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&head[0])), uintptr(len(head)), syscall.MSG_MORE, 0, 0)
			switch e {
			case 0:
				head = head[m:]
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			werr = e
			return true
		}
		for sent < n {
			m, _, e := syscall.RawSyscall6(syscall.SYS_SENDFILE, fd, uintptr(src), 0, uintptr(min(n-sent, 1<<30)), 0, 0)
			switch e {
			case 0:
				if m == 0 { // end of file
					return true
				}
				sent += int64(m)
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			werr = e
			return true
		}
		return true
	})
	runtime.KeepAlive(f)
	if err != nil {
		return sent, true, r.opError("write", err)
	}
	if werr != 0 {
		return sent, true, r.opError("write", os.NewSyscallError("sendfile", werr))
	}
	return sent, true, nil
}
