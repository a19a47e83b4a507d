//go:build linux && !loadlab_portable

package leanserver

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hangupWatch is a server's watch of its clients' ends: one epoll set of
// its own holding every connection whose requests wait on their context,
// each registered once for the connection's life and only for EPOLLRDHUP
// (the peer closed its side; EPOLLHUP and EPOLLERR come with it), edge
// triggered. A request arriving on a watched connection or an answer
// leaving it raises no event (EPOLLIN is not asked for): a client that
// stays costs nothing per request, no system call, no goroutine, no timer.
// The set's own descriptor waits in the runtime's poller like a socket:
// one goroutine per server, woken only when a client closes.
type hangupWatch struct {
	f  *os.File // the epoll descriptor, through the runtime's poller
	rc syscall.RawConn

	mu    sync.Mutex
	conns map[uint64]*serverConn // by the key their events carry
	next  uint64
}

// newHangupWatch makes the epoll set and starts its goroutine, which ends
// when the set is closed.
func newHangupWatch() (*hangupWatch, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fd), "hangup-watch") // non-blocking: pollable
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &hangupWatch{f: f, rc: rc, conns: map[uint64]*serverConn{}}
	go w.run()
	return w, nil
}

// errNoSocket is add's error for a connection without a descriptor.
var errNoSocket = errors.New("not a socket")

// add puts c in the set, for the rest of its life. A client whose end
// closed already is reported at once (epoll_ctl checks the socket as it
// adds it).
func (w *hangupWatch) add(c *serverConn) error {
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return errNoSocket
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	c.hangupRC = rc // before c is in the map, which the goroutine reads under mu
	w.mu.Lock()
	w.next++
	id := w.next
	c.hangupID.Store(id)
	w.conns[id] = c
	w.mu.Unlock()
	ev := unix.EpollEvent{Events: unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(uint32(id)), Pad: int32(uint32(id >> 32))}
	if err := w.ctl(unix.EPOLL_CTL_ADD, rc, &ev); err != nil {
		w.drop(c)
		return err
	}
	return nil
}

// ctl is epoll_ctl on the set for the socket of rc, both held open
// meanwhile.
func (w *hangupWatch) ctl(op int, rc syscall.RawConn, ev *unix.EpollEvent) error {
	var cerr error
	err := w.rc.Control(func(efd uintptr) {
		err := rc.Control(func(fd uintptr) {
			cerr = unix.EpollCtl(int(efd), op, int(fd), ev)
		})
		if cerr == nil {
			cerr = err
		}
	})
	if err == nil {
		err = cerr
	}
	if err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// remove takes c out of the set: with open (c is handed over, its
// socket stays open) out of the kernel's set too, else only out of the
// map (closing the socket takes it out of the kernel's set).
func (w *hangupWatch) remove(c *serverConn, open bool) {
	if open {
		_ = w.ctl(unix.EPOLL_CTL_DEL, c.hangupRC, nil)
	}
	w.drop(c)
}

func (w *hangupWatch) drop(c *serverConn) {
	w.mu.Lock()
	delete(w.conns, c.hangupID.Load())
	c.hangupID.Store(0)
	w.mu.Unlock()
}

// close ends the watch and its goroutine.
func (w *hangupWatch) close() { _ = w.f.Close() }

// run waits for the set's events in the runtime's poller and tells each
// connection whose client closed.
func (w *hangupWatch) run() {
	var evs [32]unix.EpollEvent
	for {
		n := 0
		err := w.rc.Read(func(fd uintptr) bool {
			for {
				m, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, fd, uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
				if e == syscall.EINTR {
					continue
				}
				n = int(m)
				return e != 0 || n > 0 // none ready: wait in the poller
			}
		})
		if err != nil {
			return // closed
		}
		for _, ev := range evs[:n] {
			id := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			w.mu.Lock()
			c := w.conns[id]
			w.mu.Unlock()
			if c != nil {
				c.hangup()
			}
		}
	}
}

// peerGone reports whether the client's end of c is closed with nothing
// left to read (a look at the socket that takes no byte: a request the
// client sent before closing is still read by the server), or the
// connection failed.
func (c *serverConn) peerGone() bool {
	gone := false
	var b [1]byte
	err := c.hangupRC.Control(func(fd uintptr) {
		for {
			n, _, e := syscall.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1, syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
			case e != 0 || n == 0:
				gone = true
			}
			return
		}
	})
	return err == nil && gone
}
