//go:build !loadlab_portable

package main

import (
	"net"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The epoll mode: nginx's design in Go. One goroutine locked to its OS
// thread runs an epoll_wait loop over non-blocking sockets (level
// triggered, EPOLLIN only: a ready socket is read once per wake-up, so no
// read ends in EAGAIN). Reads and writes are raw system calls, which never
// block here and so never enter the Go scheduler. The wait itself is a raw
// call too, with a timeout: the thread keeps the only P while it sleeps
// (no hand-off to the runtime's sysmon thread and back), and yields it
// (runtime.Gosched) after each timeout for the few other goroutines
// (-max-life's timer, the forced GC). Writes are assumed to be taken whole
// by the socket (answers up to bufSize on loopback): a short write closes
// the client, as this is a bench reference.

// waitMS bounds each epoll_wait, so that the rest of the runtime gets the
// P at least this often when the proxy is idle.
const waitMS = 50

// eClient is a client connection: the request bytes read so far, the
// answer being relayed, the upstream connection serving it.
type eClient struct {
	fd  int
	in  []byte
	n   int
	out []byte
	up  *eUpstream // nil between requests
	end int        // length of the request head being served
	req []byte     // -rewrite: the head passed on
	ip  []byte     // -rewrite: the client's address, for X-Forwarded-For
}

// eUpstream is one of the pool's connections and the answer it reads.
type eUpstream struct {
	fd    int
	c     *eClient // the client served, nil when idle
	got   int      // bytes of the answer in c.out
	total int      // the answer's length once its head is read, else -1
}

type eLoop struct {
	ep       int
	ln       int
	upstream string
	clients  map[int]*eClient
	ups      map[int]*eUpstream
	idle     []*eUpstream // the pool: idle connections, last in first out
	waiting  []*eClient   // clients with a request and no connection yet, in order
	events   []unix.EpollEvent
	rewrite  bool // the request head rewritten as the real proxy does
	host     []byte
}

// runEpoll dials the pool, listens and runs the loop on this thread.
func runEpoll(listen, upstream string, size int, rewrite bool) error {
	runtime.LockOSThread()
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	l := &eLoop{ep: ep, upstream: upstream, clients: map[int]*eClient{}, ups: map[int]*eUpstream{},
		events: make([]unix.EpollEvent, 256), rewrite: rewrite, host: []byte(upstream)}
	for range size {
		if err := l.dial(); err != nil {
			return err
		}
	}
	if l.ln, err = listenFD(listen); err != nil {
		return err
	}
	if err := l.watch(l.ln); err != nil {
		return err
	}
	for {
		n, errno := epollWait(ep, l.events, waitMS)
		switch errno {
		case 0:
		case syscall.EINTR:
			continue
		default:
			return errno
		}
		if n == 0 {
			runtime.Gosched()
			continue
		}
		for _, ev := range l.events[:n] {
			fd := int(ev.Fd)
			switch {
			case fd == l.ln:
				l.accept()
			case l.ups[fd] != nil:
				l.upstreamReadable(l.ups[fd])
			case l.clients[fd] != nil:
				l.clientReadable(l.clients[fd])
			}
		}
	}
}

// epollWait is epoll_wait as a raw system call (see the mode's comment).
func epollWait(ep int, events []unix.EpollEvent, ms int) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(sysEpollWait, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(ms), 0, 0)
	return int(n), e
}

func rawRead(fd int, p []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != syscall.EINTR {
			return int(n), e
		}
	}
}

// readReady reads what a readable socket holds: m > 0 bytes, or none and
// open when the readiness was stale (EAGAIN), or none and closed at the
// end of the stream or on an error.
func readReady(fd int, p []byte) (m int, open bool) {
	n, e := rawRead(fd, p)
	switch {
	case e == syscall.EAGAIN:
		return 0, true
	case e != 0 || n == 0:
		return 0, false
	}
	return n, true
}

// writeAll writes p whole or fails (a short write counts as a failure).
func writeAll(fd int, p []byte) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		return e == 0 && int(n) == len(p)
	}
}

// listenFD opens a non-blocking listening socket on a loopback host:port
// (IPv4 or IPv6).
func listenFD(addr string) (int, error) {
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return -1, err
	}
	family := unix.AF_INET
	var sa unix.Sockaddr = &unix.SockaddrInet4{Port: ta.Port}
	if ip4 := ta.IP.To4(); ip4 != nil {
		copy(sa.(*unix.SockaddrInet4).Addr[:], ip4)
	} else {
		family = unix.AF_INET6
		s6 := &unix.SockaddrInet6{Port: ta.Port}
		copy(s6.Addr[:], ta.IP.To16())
		sa = s6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, sa); err != nil {
		return -1, err
	}
	if err := unix.Listen(fd, 4096); err != nil {
		return -1, err
	}
	got, err := unix.Getsockname(fd)
	if err != nil {
		return -1, err
	}
	switch g := got.(type) {
	case *unix.SockaddrInet4:
		onListen(&net.TCPAddr{IP: net.IP(g.Addr[:]), Port: g.Port})
	case *unix.SockaddrInet6:
		onListen(&net.TCPAddr{IP: net.IP(g.Addr[:]), Port: g.Port})
	}
	return fd, nil
}

func (l *eLoop) watch(fd int) error {
	return unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)})
}

// dial adds a connection to the pool: a blocking connect (once per pool
// connection, not per request), then non-blocking.
func (l *eLoop) dial() error {
	nc, err := net.Dial("tcp", l.upstream)
	if err != nil {
		return err
	}
	f, err := nc.(*net.TCPConn).File() // a blocking duplicate of the socket
	nc.Close()
	if err != nil {
		return err
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		return err
	}
	if err := l.watch(fd); err != nil {
		return err
	}
	u := &eUpstream{fd: fd, total: -1}
	l.ups[fd] = u
	l.idle = append(l.idle, u)
	return nil
}

// accept takes every waiting connection (TCP_NODELAY, as Go and nginx).
func (l *eLoop) accept() {
	for {
		fd, sa, err := unix.Accept4(l.ln, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return // EAGAIN: none left (or a failure; the listener stays)
		}
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		if l.watch(fd) != nil {
			unix.Close(fd)
			continue
		}
		c := &eClient{fd: fd, in: make([]byte, bufSize), out: make([]byte, bufSize)}
		if l.rewrite {
			c.req = make([]byte, 0, bufSize)
			switch a := sa.(type) {
			case *unix.SockaddrInet4:
				c.ip = []byte(net.IP(a.Addr[:]).String())
			case *unix.SockaddrInet6:
				c.ip = []byte(net.IP(a.Addr[:]).String())
			}
		}
		l.clients[fd] = c
	}
}

func (l *eLoop) clientReadable(c *eClient) {
	if c.n == len(c.in) {
		l.closeClient(c) // a head larger than the buffer, or a deep pipeline
		return
	}
	m, open := readReady(c.fd, c.in[c.n:])
	c.n += m
	switch {
	case !open:
		l.closeClient(c)
	case m > 0 && c.up == nil: // else the bytes wait for the answer to end
		l.next(c)
	}
}

// next starts the client's next request if its head is complete.
func (l *eLoop) next(c *eClient) {
	end := headEnd(c.in[:c.n])
	if end < 0 {
		return
	}
	if !plainGET(c.in[:end]) {
		l.closeClient(c)
		return
	}
	c.end = end
	if len(l.idle) == 0 {
		l.waiting = append(l.waiting, c)
		return
	}
	u := l.idle[len(l.idle)-1]
	l.idle = l.idle[:len(l.idle)-1]
	l.start(u, c)
}

// start writes the client's request on an upstream connection.
func (l *eLoop) start(u *eUpstream, c *eClient) {
	u.c, u.got, u.total, c.up = c, 0, -1, u
	head := c.in[:c.end]
	if l.rewrite {
		c.req = rewriteHead(c.req[:0], head, l.host, c.ip)
		head = c.req
	}
	if !writeAll(u.fd, head) {
		l.fail(u)
	}
}

func (l *eLoop) upstreamReadable(u *eUpstream) {
	c := u.c
	if c == nil { // an idle connection readable: closed by the origin
		l.fail(u)
		return
	}
	m, open := readReady(u.fd, c.out[u.got:])
	if !open {
		l.fail(u)
		return
	}
	if m == 0 {
		return
	}
	u.got += m
	if u.total < 0 {
		end := headEnd(c.out[:u.got])
		if end < 0 {
			if u.got == len(c.out) {
				l.fail(u)
			}
			return
		}
		var ok bool
		if u.total, ok = answerLength(c.out[:end]); !ok {
			l.fail(u)
			return
		}
	}
	switch {
	case u.got > u.total:
		l.fail(u)
	case u.got == u.total:
		ok := writeAll(c.fd, c.out[:u.got])
		l.release(u)
		if !ok {
			l.closeClient(c)
			return
		}
		c.n = copy(c.in, c.in[c.end:c.n])
		l.next(c)
	case u.got == len(c.out): // a long body: pass the buffer on
		if !writeAll(c.fd, c.out) {
			l.fail(u)
			return
		}
		u.total -= u.got
		u.got = 0
	}
}

// release puts an upstream connection back: to the first waiting client,
// else to the pool.
func (l *eLoop) release(u *eUpstream) {
	u.c.up, u.c = nil, nil
	if len(l.waiting) > 0 {
		c := l.waiting[0]
		l.waiting = l.waiting[1:]
		l.start(u, c)
		return
	}
	l.idle = append(l.idle, u)
}

// fail closes an upstream connection in an unknown state, and its client,
// and dials a fresh one in its place.
func (l *eLoop) fail(u *eUpstream) {
	if c := u.c; c != nil {
		c.up, u.c = nil, nil
		l.closeClient(c)
	}
	for i, x := range l.idle {
		if x == u {
			l.idle = append(l.idle[:i], l.idle[i+1:]...)
			break
		}
	}
	delete(l.ups, u.fd)
	unix.Close(u.fd)
	if err := l.dial(); err == nil && len(l.waiting) > 0 {
		u := l.idle[len(l.idle)-1]
		l.idle = l.idle[:len(l.idle)-1]
		c := l.waiting[0]
		l.waiting = l.waiting[1:]
		l.start(u, c)
	}
}

func (l *eLoop) closeClient(c *eClient) {
	if u := c.up; u != nil {
		l.fail(u) // its answer would have nowhere to go
		return
	}
	for i, x := range l.waiting {
		if x == c {
			l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
			break
		}
	}
	delete(l.clients, c.fd)
	unix.Close(c.fd) // closing removes it from the epoll set
}
