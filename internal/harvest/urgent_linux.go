//go:build !loadlab_portable

package harvest

import (
	"encoding/binary"
	"sync/atomic"

	"golang.org/x/sys/unix"
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
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wfd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wfd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(wfd)
		return nil, err
	}
	return &urgent{epfd: epfd, wakefd: wfd, done: make(chan struct{})}, nil
}

// arm asks for one report when c becomes readable (at once if it already
// is), starting the watcher on first use. When the kernel refuses, c's
// wait is left to Harvest.
func (p *Poller) arm(c *Conn) {
	u := p.urgent
	if u.started.CompareAndSwap(false, true) {
		go p.watch()
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: int32(c.fd)}
	op := unix.EPOLL_CTL_MOD
	if !c.inUrgent {
		op = unix.EPOLL_CTL_ADD
	}
	if unix.EpollCtl(u.epfd, op, c.fd, &ev) == nil {
		c.inUrgent = true
	}
}

// watch resumes the waits armed in the urgent set until the poller closes.
// It blocks in epoll_wait, so it holds a thread but no processor.
func (p *Poller) watch() {
	u := p.urgent
	defer close(u.done)
	events := make([]unix.EpollEvent, 64)
	for {
		n, err := unix.EpollWait(u.epfd, events, -1) // blocks: not on the measured path
		if err == unix.EINTR {
			continue
		}
		if err != nil {
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
	var one [8]byte // an eventfd counter: a uint64 in the machine's byte order
	binary.NativeEndian.PutUint64(one[:], 1)
	unix.Write(u.wakefd, one[:])
	if u.started.Swap(true) {
		<-u.done
	}
	unix.Close(u.wakefd)
	unix.Close(u.epfd)
}
