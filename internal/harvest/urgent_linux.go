package harvest

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// largeAnswer is the answer size from which a connection's next answer is
// waited for at once instead of at the next Harvest. An answer larger
// than the receive window the kernel starts a connection with (64 KiB on
// Linux's defaults) stalls its sender until the reader reads: waiting for
// a harvest there would hold its last bytes back by up to a tick and make
// the measured latency that much longer (300 kB answers read at 350/s
// gained up to 2.9 ms at p90). Below it, the whole answer is in the
// socket by the time any harvest looks, whenever that is.
const largeAnswer = 32 << 10

// urgent is a second epoll set, waited on by one goroutine, for the
// connections whose answers are large: each such wait is armed once
// (EPOLLONESHOT) and resumed as soon as the first bytes arrive, as the
// runtime's poller would. Connections with small answers never enter it.
type urgent struct {
	epfd    int
	wakefd  int // an eventfd that ends the watcher
	started atomic.Bool
	done    chan struct{}
}

func newUrgent() (*urgent, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	const efdCloexec, efdNonblock = 0x80000, 0x800
	wfd, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, efdCloexec|efdNonblock, 0)
	if e != 0 {
		syscall.Close(epfd)
		return nil, e
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: -1}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, int(wfd), &ev); err != nil {
		syscall.Close(epfd)
		syscall.Close(int(wfd))
		return nil, err
	}
	return &urgent{epfd: epfd, wakefd: int(wfd), done: make(chan struct{})}, nil
}

// arm asks for one report when c becomes readable (at once if it already
// is), starting the watcher on first use. When the kernel refuses, c's
// wait is left to Harvest.
func (p *Poller) arm(c *Conn) {
	u := p.urgent
	if u.started.CompareAndSwap(false, true) {
		go p.watch()
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT, Fd: int32(c.fd)}
	op := syscall.EPOLL_CTL_MOD
	if !c.inUrgent {
		op = syscall.EPOLL_CTL_ADD
	}
	if syscall.EpollCtl(u.epfd, op, c.fd, &ev) == nil {
		c.inUrgent = true
	}
}

// watch resumes the waits armed in the urgent set until the poller closes.
// It blocks in epoll_wait, so it holds a thread but no processor.
func (p *Poller) watch() {
	u := p.urgent
	defer close(u.done)
	events := make([]syscall.EpollEvent, 64)
	for {
		n, _, e := syscall.Syscall6(syscall.SYS_EPOLL_PWAIT, uintptr(u.epfd),
			uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), ^uintptr(0), 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return
		}
		p.mu.Lock()
		for _, ev := range events[:n] {
			if ev.Fd == -1 {
				p.mu.Unlock()
				return
			}
			if fd := int(ev.Fd); fd < len(p.byFD) {
				if c := p.byFD[fd]; c != nil {
					c.notify()
				}
			}
		}
		p.mu.Unlock()
	}
}

// close ends the watcher (if it ever started) and releases the set.
func (u *urgent) close() {
	one := uint64(1)
	syscall.Write(u.wakefd, (*[8]byte)(unsafe.Pointer(&one))[:])
	if u.started.Swap(true) {
		<-u.done
	}
	syscall.Close(u.wakefd)
	syscall.Close(u.epfd)
}
