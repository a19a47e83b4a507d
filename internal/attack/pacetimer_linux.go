//go:build linux && (amd64 || arm64)

package attack

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// paceTimer is the pacer's clock: a Linux timerfd waited on through the
// runtime poller. Go's own timers wake the process through epoll_wait's
// millisecond timeout, so a wait shorter than a millisecond ends up to a
// millisecond late, and a longer one that is not a whole number of
// milliseconds takes two wake-ups. A timerfd becomes readable at its nanosecond
// expiry: one wake-up, on time. Arming and reading it are raw system calls
// (see internal/rawconn).
//
// The runtime looks at its poller only when a processor runs out of work,
// or every 10 ms: while every processor has goroutines to run (a
// thousand new connections a second at the start of an attack), a
// readable timerfd went unseen for up to 13 ms. So each wait also sets
// the file's read deadline to the same instant: a Go timer, which the
// scheduler checks at every switch and which wakes the pacer next on its
// processor. Whichever comes first ends the wait: the timerfd when the
// processors are idle (the Go timer then fires up to a millisecond late),
// the deadline when they are busy.
type paceTimer struct {
	f           *os.File
	rc          syscall.RawConn
	fd          uintptr
	buf         [8]byte
	readFn      func(fd uintptr) bool
	interrupted atomic.Bool
}

type itimerspec struct{ interval, value syscall.Timespec }

// newPaceTimer returns nil if the system refuses a timerfd (the pacer then
// uses a Go timer).
func newPaceTimer() *paceTimer {
	const clockMonotonic = 1
	fd, _, e := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return nil
	}
	f := os.NewFile(fd, "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil
	}
	t := &paceTimer{f: f, rc: rc, fd: fd}
	t.readFn = t.read
	return t
}

func (t *paceTimer) read(fd uintptr) bool {
	_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&t.buf[0])), 8)
	return e != syscall.EAGAIN
}

// wait sleeps for d (> 0). It returns false when interrupt was called.
func (t *paceTimer) wait(d time.Duration) bool {
	// Arming the timerfd also clears an expiry left over from a wait the
	// deadline ended.
	its := itimerspec{value: syscall.NsecToTimespec(int64(d))}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0); e != 0 {
		time.Sleep(d)
		return !t.interrupted.Load()
	}
	_ = t.f.SetReadDeadline(time.Now().Add(d))
	if t.interrupted.Load() { // after setting the deadline: see interrupt
		return false
	}
	err := t.rc.Read(t.readFn)
	if t.interrupted.Load() {
		return false
	}
	return err == nil || errors.Is(err, os.ErrDeadlineExceeded)
}

// interrupt makes a wait in progress, and every later one, return false.
// The flag is set before the deadline is moved to the past, and wait sets
// its deadline before looking at the flag: a wait either sees the flag or
// has its deadline overridden by this one.
func (t *paceTimer) interrupt() {
	t.interrupted.Store(true)
	_ = t.f.SetReadDeadline(time.Unix(1, 0))
}

func (t *paceTimer) close() { _ = t.f.Close() }
