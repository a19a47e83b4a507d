//go:build linux && !loadlab_portable

package hangup

import (
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Watch is an epoll set of sockets watched for their peer closing.
type Watch struct {
	f  *os.File // the epoll descriptor, through the runtime's poller
	rc syscall.RawConn

	mu    sync.Mutex
	funcs map[uint64]func() // by the key their events carry
	next  uint64
}

// New makes the set and starts its goroutine, which ends with Close.
func New() (*Watch, error) {
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
	w := &Watch{f: f, rc: rc, funcs: map[uint64]func(){}}
	go w.run()
	return w, nil
}

// Add puts the socket of rc in the set until Remove (or its close): f
// runs in the watch's goroutine when its peer's end closes (once: the
// event is edge-triggered), at once if it is closed already (epoll_ctl
// checks the socket as it adds it). The key is Remove's.
func (w *Watch) Add(rc syscall.RawConn, f func()) (uint64, error) {
	w.mu.Lock()
	w.next++
	key := w.next
	w.funcs[key] = f
	w.mu.Unlock()
	ev := unix.EpollEvent{Events: unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(uint32(key)), Pad: int32(uint32(key >> 32))}
	if err := w.ctl(unix.EPOLL_CTL_ADD, rc, &ev); err != nil {
		w.Remove(key, nil)
		return 0, err
	}
	return key, nil
}

// Remove takes the socket of key out of the set: f no longer runs. With
// rc (a socket that stays open, e.g. handed to another server) out of the
// kernel's set too; without, the socket's close takes it out.
func (w *Watch) Remove(key uint64, rc syscall.RawConn) {
	if rc != nil {
		_ = w.ctl(unix.EPOLL_CTL_DEL, rc, nil)
	}
	w.mu.Lock()
	delete(w.funcs, key)
	w.mu.Unlock()
}

// ctl is epoll_ctl on the set for the socket of rc, both held open
// meanwhile.
func (w *Watch) ctl(op int, rc syscall.RawConn, ev *unix.EpollEvent) error {
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

// Close ends the watch and its goroutine.
func (w *Watch) Close() { _ = w.f.Close() }

// run waits for the set's events in the runtime's poller and runs the
// callback of each socket whose peer closed.
func (w *Watch) run() {
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
			key := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			w.mu.Lock()
			f := w.funcs[key]
			w.mu.Unlock()
			if f != nil {
				f()
			}
		}
	}
}

// PeerGone reports whether the peer's end of the socket of rc is closed
// with nothing left to read, or the connection failed: a look at the
// socket that takes no byte (bytes the peer sent before closing are
// still read by their reader, and are not its leaving).
func PeerGone(rc syscall.RawConn) bool {
	gone := false
	var b [1]byte
	err := rc.Control(func(fd uintptr) {
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
