//go:build linux && !loadlab_portable

package attack

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// paceTimer is the pacer's clock: a Linux timerfd waited on through the
// runtime poller. Go's own timers wake the process through epoll_wait's
// millisecond timeout, so a wait shorter than a millisecond ends up to a
// millisecond late, and a longer one that is not a whole number of
// milliseconds takes two wake-ups. A timerfd becomes readable at its nanosecond
// expiry: one wake-up, on time.
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
	fd          int
	buf         [8]byte
	readFn      func(fd uintptr) bool
	interrupted atomic.Bool
}

// newPaceTimer returns nil if the system refuses a timerfd (the pacer then
// uses a Go timer).
func newPaceTimer() *paceTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil
	}
	t := &paceTimer{f: f, rc: rc, fd: fd}
	t.readFn = t.read
	return t
}

// read drains the timerfd's expiry count with a raw system call, not
// unix.Read, which enters the scheduler's system-call state
// (entersyscall/exitsyscall) and with it wakes the runtime's sysmon
// thread when it sleeps. Measured 2026-11-27 at 5,000 requests/s with
// -precise (a wait per request; load average 5): unix.Read 2.8-3.0
// context switches and 5.5-6.2 CPU-s per 100k requests, raw 1.0 and
// 4.3-4.5; in a tight loop the two cost the same (BenchmarkPaceTimerRead:
// raw 442-510, unix.Read 426-581 ns/op). The read never blocks
// (TFD_NONBLOCK).
func (t *paceTimer) read(fd uintptr) bool {
	_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
	return e != unix.EAGAIN
}

// wait sleeps for d (> 0). It returns false when interrupt was called.
func (t *paceTimer) wait(d time.Duration) bool {
	// Arming the timerfd also clears an expiry left over from a wait the
	// deadline ended. (unix.TimerfdSettime is itself a raw system call.)
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(t.fd, 0, &its, nil); err != nil {
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

// PreciseSupported says whether this build has the precise pacer: it
// needs the paceTimer (a Linux timerfd); elsewhere every attack is batched.
const PreciseSupported = true
