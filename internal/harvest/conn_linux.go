//go:build !loadlab_portable

package harvest

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadlab/loadlab/internal/rawconn"
)

// Conn is a TCP connection whose waits are resumed by Poller.Harvest. It
// implements net.Conn; Read and Write are for one goroutine at a time,
// SetDeadline and Close may come from another.
type Conn struct {
	p     *Poller
	fd    int
	laddr *net.TCPAddr
	raddr *net.TCPAddr

	state    atomic.Int32 // idle, waiting or ready
	wake     chan struct{}
	deadline atomic.Int64 // unix ns, 0 = none
	closed   atomic.Bool
	timerMu  sync.Mutex
	timer    *time.Timer // resumes a wait when the deadline passes

	wrote     bool  // written since the last read: the answer cannot be there yet
	midAnswer bool  // bytes came since the last write: the rest follows at once
	rx        int64 // kernel receive time (unix ns) of the last read's bytes
	answered  int   // bytes read since the last write
	large     bool  // the answer awaited is expected to be large (see largeAnswer)
	inUrgent  bool  // added to the poller's urgent set
	stamped   rawconn.Stamped
}

// The states of a Conn's wait hand-off between its reader and Harvest.
const (
	idle    int32 = iota // nobody waits, nothing reported
	waiting              // a read, write or dial waits for Harvest
	ready                // Harvest reported a change nobody waited for yet
)

// notify records that the socket changed; it resumes a waiting call and
// reports whether there was one.
func (c *Conn) notify() bool {
	for {
		switch c.state.Load() {
		case waiting:
			if c.state.CompareAndSwap(waiting, idle) {
				c.wake <- struct{}{}
				return true
			}
		case idle:
			if c.state.CompareAndSwap(idle, ready) {
				return false
			}
		default:
			return false
		}
	}
}

// wait blocks until the socket changes (nil: try again), or fails with
// os.ErrDeadlineExceeded when the deadline has passed or the poller was
// aborted. Deadlines and aborts resume waits through notify too, so a
// wait is a plain channel receive (no timer to arm per wait).
func (c *Conn) wait() error {
	for {
		if err := c.expired(); err != nil {
			return err
		}
		if c.state.CompareAndSwap(ready, idle) {
			return nil
		}
		if c.state.CompareAndSwap(idle, waiting) {
			break
		}
	}
	if err := c.expired(); err != nil { // the deadline passed while arming
		c.unwait()
		return err
	}
	<-c.wake
	return nil
}

// expired reports a passed deadline or an aborted poller.
func (c *Conn) expired() error {
	if c.p.aborted.Load() {
		return os.ErrDeadlineExceeded // a hard stop: the wait timed out
	}
	if dl := c.deadline.Load(); dl != 0 && time.Now().UnixNano() >= dl {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// unwait leaves the waiting state; when notify got there first, its
// wake-up is consumed so the next wait does not see it.
func (c *Conn) unwait() {
	if !c.state.CompareAndSwap(waiting, idle) {
		<-c.wake
		c.state.Store(ready) // the change it reported is still unread
	}
}

// Read reads what has arrived. Waiting for the first bytes after a Write
// (a request's answer) is left to Harvest; once some bytes of an answer
// came, the rest is waited for at once (block), so a large answer is not
// read a tick at a time, which would hold the sender back through TCP's
// window and delay its last bytes. Right after a Write, Read waits before
// trying (the answer cannot be there yet): one system call per answer.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if c.wrote {
		c.wrote = false
		c.midAnswer = false
		if err := c.waitAnswer(); err != nil {
			return 0, c.opError("read", err)
		}
	}
	for {
		n, e := c.recv(b)
		switch e {
		case 0:
			if n == 0 {
				return 0, io.EOF
			}
			c.midAnswer = true
			c.answered += n
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			var err error
			if c.midAnswer {
				err = c.block(unix.POLLIN)
			} else {
				err = c.waitAnswer()
			}
			if err != nil {
				return 0, c.opError("read", err)
			}
			continue
		}
		return 0, c.opError("read", os.NewSyscallError("read", e))
	}
}

// waitAnswer waits for the first bytes of an answer: at the next Harvest,
// or at once when the answer is expected to be large (see largeAnswer).
func (c *Conn) waitAnswer() error {
	if c.large {
		c.p.arm(c) // refused: the wait is left to Harvest
	}
	return c.wait() // resumed by the urgent watcher or a Harvest, whichever comes first
}

// blockSlice bounds one blocking poll, so deadlines moved by SetDeadline
// and aborts are seen within it.
const blockSlice = 50 * time.Millisecond

// block waits for events on the socket in a blocking system call (the
// runtime lends the goroutine's thread meanwhile), for the waits Harvest's
// tick would distort: a connection being set up, a full send buffer, the
// rest of an answer. It fails with os.ErrDeadlineExceeded like wait.
func (c *Conn) block(events int16) error {
	for {
		if err := c.expired(); err != nil {
			return err
		}
		slice := blockSlice
		if dl := c.deadline.Load(); dl != 0 {
			slice = min(slice, time.Duration(dl-time.Now().UnixNano()))
		}
		if slice <= 0 {
			continue // expired: reported above
		}
		if pollReady(c.fd, events, slice) {
			return nil
		}
	}
}

// pollReady polls fd for events (unix.POLLIN, unix.POLLOUT) for up to d
// (0: without waiting).
//
// It calls ppoll raw rather than through unix.Ppoll: the check without
// waiting is made on every dial and every full send buffer of the
// measured client, and a raw system call there skips the scheduler's
// entry and exit (unix.Ppoll always pays them); only a poll that may
// block tells the scheduler.
func pollReady(fd int, events int16, d time.Duration) bool {
	pfd := [1]unix.PollFd{{Fd: int32(fd), Events: events}}
	ts := unix.NsecToTimespec(int64(d))
	// The uintptr(unsafe.Pointer(...)) conversions must stand in the call
	// of Syscall6 itself: only there does the compiler keep the
	// pointed-to memory in place until the call returns. Called through a
	// function value, the goroutine's stack could grow and move between
	// the conversion and the system call, and the kernel would poll a
	// stale copy of pfd (an old stack slot, another fd): data in the
	// socket went unseen and a read waited until its deadline.
	var n uintptr
	var e unix.Errno
	if d > 0 { // blocks: tell the scheduler
		n, _, e = unix.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	} else {
		n, _, e = unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	}
	return e == 0 && n > 0
}

// recv is one recvmsg; it keeps the kernel receive timestamp of the data.
func (c *Conn) recv(b []byte) (int, unix.Errno) {
	n, rx, e := c.stamped.Recv(uintptr(c.fd), b)
	if e == 0 && n > 0 {
		c.rx = rx // 0 without a stamp: Linux turns them on a moment after the first socket asks
	}
	return n, e
}

// Write writes all of b, waiting (block) while the socket buffer is full.
func (c *Conn) Write(b []byte) (int, error) {
	if !c.wrote {
		// A new request: expect an answer like the last one (a new
		// connection, like the last one on the poller).
		if c.answered > 0 {
			c.large = c.answered >= largeAnswer
			if c.p.largeSeen.Load() != c.large { // written only on a change: every worker reads it
				c.p.largeSeen.Store(c.large)
			}
		} else {
			c.large = c.p.largeSeen.Load()
		}
		c.answered = 0
	}
	c.wrote = true
	done := 0
	for {
		n, e := rawconn.WriteSome(uintptr(c.fd), b[done:])
		done += n
		switch e {
		case 0:
			return done, nil
		case unix.EAGAIN: // the send buffer is full: it drains at network speed
			if err := c.block(unix.POLLOUT); err != nil {
				return done, c.opError("write", err)
			}
			continue
		}
		return done, c.opError("write", os.NewSyscallError("write", e))
	}
}

// Received returns when the bytes of c's last read reached the machine
// (the kernel's receive timestamp), or zero for other connections or
// before any read. The time carries a monotonic reading, so it can be
// subtracted from time.Now values.
func Received(nc net.Conn) time.Time {
	c, ok := nc.(*Conn)
	if !ok {
		return time.Time{}
	}
	return rawconn.Arrival(c.rx, time.Now(), maxStampAge)
}

// maxStampAge bounds how old a receive timestamp may be; an older one
// (a clock step) is not trusted.
const maxStampAge = time.Hour

// Close closes the connection; waits in progress fail.
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	c.p.forget(c)
	c.timerMu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.timerMu.Unlock()
	c.deadline.Store(1) // long past: a wait in progress ends
	c.notify()
	return unix.Close(c.fd)
}

// LocalAddr is the connection's local address.
func (c *Conn) LocalAddr() net.Addr { return c.laddr }

// RemoteAddr is the address dialled.
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

// SetDeadline sets when waiting reads and writes give up
// (os.ErrDeadlineExceeded); a deadline in the past ends a wait at once.
// The deadline's timer is armed here, not per wait: keep it far enough
// ahead and requests cost no timer operations.
func (c *Conn) SetDeadline(t time.Time) error {
	var ns int64
	if !t.IsZero() {
		ns = max(t.UnixNano(), 1)
	}
	if c.deadline.Swap(ns) == ns {
		return nil
	}
	c.timerMu.Lock()
	defer c.timerMu.Unlock()
	if ns == 0 {
		if c.timer != nil {
			c.timer.Stop()
		}
		return nil
	}
	d := time.Until(t)
	if d <= 0 {
		c.notify()
		return nil
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(d, func() { c.notify() })
	} else {
		c.timer.Reset(d)
	}
	return nil
}

// SetReadDeadline is SetDeadline: one deadline serves both directions.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline is SetDeadline: one deadline serves both directions.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

func (c *Conn) opError(op string, err error) error {
	var src net.Addr
	if c.laddr != nil {
		src = c.laddr
	}
	return &net.OpError{Op: op, Net: "tcp", Source: src, Addr: c.raddr, Err: err}
}

// Dial connects to addr ("host:port") without binding first, within
// timeout (0: none) or until ctx ends. Its errors read as net.Dial's.
func (p *Poller) Dial(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	tas, err := p.resolve(ctx, addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
	}
	// One address after the other (IPv4 first), as net.Dial falls back
	// when "localhost" is served on ::1 only; the first error is reported.
	var first error
	for _, ta := range tas {
		c, err := p.dial(ctx, ta, timeout)
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = &net.OpError{Op: "dial", Net: "tcp", Addr: ta, Err: err}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

func (p *Poller) dial(ctx context.Context, ta *net.TCPAddr, timeout time.Duration) (*Conn, error) {
	family := unix.AF_INET6
	var sa unix.Sockaddr
	if ip4 := ta.IP.To4(); ip4 != nil {
		family = unix.AF_INET
		sa4 := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa4.Addr[:], ip4)
		sa = sa4
	} else {
		sa6 := &unix.SockaddrInet6{Port: ta.Port}
		copy(sa6.Addr[:], ta.IP.To16())
		if ta.Zone != "" {
			if ifi, err := net.InterfaceByName(ta.Zone); err == nil {
				sa6.ZoneId = uint32(ifi.Index)
			}
		}
		sa = sa6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	for _, o := range [][3]int{
		{unix.IPPROTO_TCP, unix.TCP_NODELAY, 1},
		{unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
	} {
		if err := unix.SetsockoptInt(fd, o[0], o[1], o[2]); err != nil {
			unix.Close(fd)
			return nil, os.NewSyscallError("setsockopt", err)
		}
	}
	if err := rawconn.EnableStamps(fd); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setsockopt", err)
	}
	c := &Conn{p: p, fd: fd, raddr: ta, wake: make(chan struct{}, 1)}
	if err := p.register(c); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	if err := p.connect(ctx, c, sa, timeout); err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	if lsa, err := unix.Getsockname(fd); err == nil {
		c.laddr = sockaddrTCP(lsa)
	}
	return c, nil
}

// connect starts a non-blocking connect and waits for its outcome.
func (p *Poller) connect(ctx context.Context, c *Conn, sa unix.Sockaddr, timeout time.Duration) error {
	err := unix.Connect(c.fd, sa)
	switch err {
	case nil, unix.EISCONN:
		return nil
	case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
	default:
		return os.NewSyscallError("connect", err)
	}
	dl, ok := ctx.Deadline()
	if timeout > 0 && (!ok || time.Now().Add(timeout).Before(dl)) {
		dl, ok = time.Now().Add(timeout), true
	}
	if ok {
		c.SetDeadline(dl)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if pollReady(c.fd, unix.POLLOUT, 0) {
			return connectResult(c.fd)
		}
		// The handshake takes a round trip: wait for it at once, not at
		// the next Harvest, since a new connection's set-up is part of
		// its first request's latency.
		if err := c.block(unix.POLLOUT); err != nil {
			return err
		}
	}
}

// connectResult is the outcome of a finished non-blocking connect.
func connectResult(fd int) error {
	soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	if soErr != 0 {
		return os.NewSyscallError("connect", unix.Errno(soErr))
	}
	return nil
}

func sockaddrTCP(sa unix.Sockaddr) *net.TCPAddr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return nil
}
