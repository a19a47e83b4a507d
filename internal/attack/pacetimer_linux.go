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

// paceTimer is the pacer's clock: Linux timerfds waited on through the
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
//
// There are two timerfds, used in turn, and each wait arms the other one
// for the wait after it (sleepUntil's then). Arming a timer that becomes
// the CPU's next event reprograms the CPU's timer, which on a VM is an
// exit to the hypervisor: timerfd_settime for 150 µs ahead took 8.3 µs on
// the VM the benchmarks ran on, against 0.8 µs for one an hour ahead, and
// a precise pacer that armed its timer as it went to sleep paid that for
// every request. Armed one wait ahead, the timer is never the next event
// when it is armed (the one being waited for comes first), and the
// kernel reprograms the CPU's timer for it in the interrupt that ends the
// wait before, as it does anyway. Measured in a loop of 200 µs waits on one
// CPU: 21-24 µs of task-clock per wait armed as it goes, 16-18 µs armed
// one wait ahead.
type paceTimer struct {
	fds [2]*timerFile
	// ref and refMono map a time.Time to CLOCK_MONOTONIC, which the
	// timerfds are armed on: mono(t) = refMono + t.Sub(ref).
	ref         time.Time
	refMono     int64
	interrupted atomic.Bool
	// missed counts the waits whose timer was not armed for them yet
	// (armed as they went to sleep): the first, and one after each change
	// of pace.
	missed int
}

// timerFile is one of a paceTimer's timerfds.
type timerFile struct {
	f      *os.File
	rc     syscall.RawConn
	fd     int
	buf    [8]byte
	readFn func(fd uintptr) bool
	// at is the expiry it is armed for (CLOCK_MONOTONIC ns), 0 when it is
	// not armed or its expiry was waited for.
	at int64
}

// rearmBelow is how far an armed expiry may be from the instant a wait
// wants and still serve it. The precise pacer moves its early wake-up by
// at most earlyDown at a time: the timer it armed one wait ahead is then
// within that of what the wait wants, and the plan spins through an
// expiry that came that much early (rearmBelow ≤ spinBelow).
const rearmBelow = earlyDown

// newPaceTimer returns nil if the system refuses a timerfd (the pacer then
// uses a Go timer).
func newPaceTimer() *paceTimer {
	t := &paceTimer{}
	for i := range t.fds {
		tf, err := newTimerFile()
		if err != nil {
			t.close()
			return nil
		}
		t.fds[i] = tf
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		t.close()
		return nil
	}
	t.ref, t.refMono = time.Now(), ts.Nano()
	return t
}

func newTimerFile() (*timerFile, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	tf := &timerFile{f: f, rc: rc, fd: fd}
	tf.readFn = tf.read
	return tf, nil
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
func (tf *timerFile) read(fd uintptr) bool {
	_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&tf.buf[0])), uintptr(len(tf.buf)))
	return e != unix.EAGAIN
}

// arm sets tf to expire at mono (CLOCK_MONOTONIC ns), once. Arming also
// clears an expiry left over from a wait the deadline ended. It reports
// false when the system refuses.
func (tf *timerFile) arm(mono int64) bool {
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(mono)}
	if unix.TimerfdSettime(tf.fd, unix.TFD_TIMER_ABSTIME, &its, nil) != nil { // a raw system call
		tf.at = 0
		return false
	}
	tf.at = mono
	return true
}

func (t *paceTimer) mono(at time.Time) int64 { return t.refMono + int64(at.Sub(t.ref)) }

func (t *paceTimer) instant(mono int64) time.Time { return t.ref.Add(time.Duration(mono - t.refMono)) }

// near returns the timerfd armed within rearmBelow of mono, or -1.
func (t *paceTimer) near(mono int64) int {
	for i, tf := range t.fds {
		if d := tf.at - mono; tf.at != 0 && d <= int64(rearmBelow) && d >= -int64(rearmBelow) {
			return i
		}
	}
	return -1
}

// wait sleeps for d (> 0). It returns false when interrupt was called.
func (t *paceTimer) wait(d time.Duration) bool {
	_, ok := t.sleepUntil(time.Now().Add(d), time.Time{})
	return ok
}

// sleepUntil sleeps until at, or until the expiry armed within rearmBelow
// of it, which it returns (the lateness of a wake-up is measured from
// it). When then is not zero, the other timerfd is armed for then before
// the wait (see paceTimer). It returns false when interrupt was called.
func (t *paceTimer) sleepUntil(at, then time.Time) (time.Time, bool) {
	want := t.mono(at)
	k := t.near(want)
	if k < 0 {
		t.missed++
		k = 0
		if !then.IsZero() && t.near(t.mono(then)) == 0 {
			k = 1 // the first one is armed for the next wait already
		}
		if !t.fds[k].arm(want) {
			time.Sleep(time.Until(at))
			return at, !t.interrupted.Load()
		}
	}
	tf := t.fds[k]
	exp := tf.at
	if !then.IsZero() {
		if o := t.fds[1-k]; t.near(t.mono(then)) != 1-k {
			o.arm(t.mono(then)) // refused: the next wait arms its own
		}
	}
	tf.at = 0 // waited for from here on
	until := t.instant(exp)
	_ = tf.f.SetReadDeadline(until)
	if t.interrupted.Load() { // after setting the deadline: see interrupt
		return until, false
	}
	err := tf.rc.Read(tf.readFn)
	if t.interrupted.Load() {
		return until, false
	}
	return until, err == nil || errors.Is(err, os.ErrDeadlineExceeded)
}

// interrupt makes a wait in progress, and every later one, return false.
// The flag is set before the deadlines are moved to the past, and a wait
// sets its deadline before looking at the flag: a wait either sees the
// flag or has its deadline overridden by this one.
func (t *paceTimer) interrupt() {
	t.interrupted.Store(true)
	for _, tf := range t.fds {
		_ = tf.f.SetReadDeadline(time.Unix(1, 0))
	}
}

func (t *paceTimer) close() {
	for _, tf := range t.fds {
		if tf != nil {
			_ = tf.f.Close()
		}
	}
}

// PreciseSupported says whether this build has the precise pacer: it
// needs the paceTimer (a Linux timerfd); elsewhere every attack is batched.
const PreciseSupported = true
