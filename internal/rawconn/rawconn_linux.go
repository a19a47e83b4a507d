//go:build linux && !loadlab_portable

package rawconn

import (
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Conn does a lean connection's reads and writes as raw system calls on
// its non-blocking socket, through the runtime poller (syscall.RawConn), so
// deadlines and waiting for readiness work as with net.Conn. Raw calls do
// not enter the Go scheduler's syscall state: a read or write (which never
// blocks on a non-blocking socket) then does not wake the runtime's sysmon
// thread and reset it to its fastest polling, which at thousands of paced
// requests per second costs extra thread wake-ups for every request
// (bench/HISTORY.md, attack, "Raw system calls").
//
// For a client, a request need not be written at once: after Send,
// sendThenRead writes it inside the first Read, after the poller has been reset for reading, and then waits
// for the response without first trying a read that could only fail with
// EAGAIN (one system call less per request).
type Conn struct {
	rc          syscall.RawConn
	nc          net.Conn
	p           []byte // buffer of the read or write in progress
	pending     []byte // request to write before the next read
	n           int
	errno       syscall.Errno
	writeFailed bool // errno is from writing pending
	readFn      func(fd uintptr) bool
	writeFn     func(fd uintptr) bool
	sendReadFn  func(fd uintptr) bool
	stampFn     func(fd uintptr) bool // ReadStamped's; nil until EnableStamps
	stamped     *Stamped
	rx          int64
	off         int64 // file offset of SendFileAt's sendfile calls
}

// New returns nil when nc is not a socket the raw path can serve; the
// caller then uses nc's own Read and Write.
func New(nc net.Conn) *Conn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &Conn{rc: rc, nc: nc}
	r.readFn, r.writeFn, r.sendReadFn = r.rawRead, r.rawWrite, r.sendThenRead
	return r
}

func (r *Conn) rawRead(fd uintptr) bool {
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

// sendThenRead writes pending, then reads. The poller was reset for
// reading before the write (RawConn.Read), so the response's arrival
// cannot be missed: returning false right after the write waits for it.
func (r *Conn) sendThenRead(fd uintptr) bool {
	if r.pending == nil {
		return r.rawRead(fd)
	}
	n, e := WriteSome(fd, r.pending)
	r.pending = r.pending[n:]
	switch e {
	case 0:
		r.pending = nil
		return false // sent: wait for the response
	case syscall.EAGAIN:
		return true // socket buffer full: Read finishes with Write
	}
	r.errno, r.writeFailed, r.pending = e, true, nil
	return true
}

func (r *Conn) rawWrite(fd uintptr) bool {
	n, e := WriteSome(fd, r.p)
	r.n += n
	r.p = r.p[n:]
	switch e {
	case 0:
		return true
	case syscall.EAGAIN:
		return false // socket buffer full: wait until writable
	}
	r.errno = e
	return true
}

// Send makes the next Read write b first (b must stay untouched until
// then). Write errors are returned by that Read, worded as Write's.
func (r *Conn) Send(b []byte) {
	if len(b) > 0 {
		r.pending = b
	}
}

// Read reads into p as net.Conn's Read does (io.EOF at the end, the same
// error values), after writing what send left pending.
func (r *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	fn := r.readFn
	if r.pending != nil {
		fn = r.sendReadFn
	}
	r.p, r.n, r.errno, r.writeFailed = p, 0, 0, false
	err := r.rc.Read(fn)
	r.p = nil
	if len(r.pending) > 0 { // the socket buffer filled up: write the rest
		rest := r.pending
		r.pending = nil
		if err == nil {
			if _, err := r.Write(rest); err != nil {
				return 0, err
			}
			return r.Read(p)
		}
	}
	r.pending = nil
	if err != nil {
		return 0, r.opError("read", err)
	}
	if r.errno != 0 {
		if r.writeFailed {
			return 0, r.opError("write", os.NewSyscallError("write", r.errno))
		}
		return 0, r.opError("read", os.NewSyscallError("read", r.errno))
	}
	if r.n == 0 {
		return 0, io.EOF
	}
	return r.n, nil
}

// EnableStamps asks the kernel for the receive time of the bytes each
// ReadStamped returns.
func (r *Conn) EnableStamps() error {
	var serr error
	if err := r.rc.Control(func(fd uintptr) { serr = EnableStamps(int(fd)) }); err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	r.stamped = &Stamped{}
	r.stampFn = r.rawStampedRead
	return nil
}

func (r *Conn) rawStampedRead(fd uintptr) bool {
	for {
		n, rx, e := r.stamped.Recv(fd, r.p)
		switch e {
		case 0:
			r.n, r.rx = n, rx
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		r.errno = e
		return true
	}
}

// ReadStamped reads as Read does (after EnableStamps, without a pending
// Send) and also returns the kernel's receive time of the bytes, in Unix
// nanoseconds: 0 when none came with them (see Arrival).
func (r *Conn) ReadStamped(p []byte) (int, int64, error) {
	if r.stampFn == nil || r.pending != nil {
		n, err := r.Read(p)
		return n, 0, err
	}
	if len(p) == 0 {
		return 0, 0, nil
	}
	r.p, r.n, r.rx, r.errno = p, 0, 0, 0
	err := r.rc.Read(r.stampFn)
	r.p = nil
	switch {
	case err != nil:
		return 0, 0, r.opError("read", err)
	case r.errno != 0:
		return 0, 0, r.opError("read", os.NewSyscallError("recvmsg", r.errno))
	case r.n == 0:
		return 0, 0, io.EOF
	}
	return r.n, r.rx, nil
}

// Write writes all of p.
func (r *Conn) Write(p []byte) (int, error) {
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

// opError words err as net.Conn would: "read tcp A->B: ...".
func (r *Conn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok { // from RawConn: "raw-read" etc.
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: r.nc.LocalAddr(), Addr: r.nc.RemoteAddr(), Err: err}
}

// SendFile writes head (with MSG_MORE, so it leaves in the same
// segments as the body, like TCP_CORK without its two system calls), then
// up to n bytes of f from its current offset with sendfile. It returns the
// body bytes sent; ok is false when f cannot be used (nothing was sent).
func (r *Conn) SendFile(head []byte, f *os.File, n int64) (sent int64, ok bool, err error) {
	return r.sendFile(head, f, -1, n)
}

// SendFileAt is SendFile from offset off of f, without using or moving f's
// own offset (sendfile(2) with an offset), so answers may share one handle
// of the same file.
func (r *Conn) SendFileAt(head []byte, f *os.File, off, n int64) (sent int64, ok bool, err error) {
	if off < 0 {
		return 0, false, nil
	}
	return r.sendFile(head, f, off, n)
}

// sendFile is SendFile from offset off (in r.off, which the kernel
// advances), or from f's own offset when off is negative.
func (r *Conn) sendFile(head []byte, f *os.File, off, n int64) (sent int64, ok bool, err error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	// The whole send runs inside Control, which holds a reference to f's
	// descriptor: a Close of f meanwhile (f may be shared) closes it only
	// afterwards, so its number cannot be reused under the sendfile.
	var werr syscall.Errno
	cerr := sc.Control(func(src uintptr) {
		ok = true
		r.off = off
		err = r.rc.Write(func(fd uintptr) bool {
			m, e := sendSome(fd, head, syscall.MSG_MORE)
			head = head[m:]
			switch e {
			case 0:
			case syscall.EAGAIN:
				return false
			default:
				werr = e
				return true
			}
			for sent < n {
				var m uintptr
				var e syscall.Errno
				if off < 0 {
					m, _, e = syscall.RawSyscall6(sysSendfile, fd, uintptr(src), 0, uintptr(min(n-sent, 1<<30)), 0, 0)
				} else {
					m, _, e = syscall.RawSyscall6(sysSendfile, fd, uintptr(src), uintptr(unsafe.Pointer(&r.off)), uintptr(min(n-sent, 1<<30)), 0, 0)
				}
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
	})
	runtime.KeepAlive(f)
	if cerr != nil || !ok {
		return 0, false, nil
	}
	if err != nil {
		return sent, true, r.opError("write", err)
	}
	if werr != 0 {
		return sent, true, r.opError("write", os.NewSyscallError("sendfile", werr))
	}
	return sent, true, nil
}
