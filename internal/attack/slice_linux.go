//go:build linux && !loadlab_portable

package attack

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The precise pacer asks the kernel for a short time slice. Linux's
// scheduler (EEVDF, 6.6 and later) lets a task that wakes up take the CPU
// from the one running there when its virtual deadline comes first, and a
// task's deadline is its slice away: with the default slice (0.75-3 ms) a
// pacer woken by its timer while another process runs on its CPU waits
// for that process's slice to run out, so its request leaves up to a few
// milliseconds late. Since Linux 6.12 an ordinary (SCHED_OTHER) task may
// ask for its own slice, no privilege needed (sched_setattr with
// sched_runtime, bounded to 0.1-100 ms); the shortest one lets the pacer's
// wake-up preempt at once. That is what a latency-sensitive task is meant
// to do, unlike real-time priority, which loadlab does not ask for.
//
// Measured 2026-11-27 (bench/README.md, "A short time slice"): 5,000
// req/s with -precise beside a process that takes 2 ms of the generator's
// CPU every 20 ms, requests over 100 µs late 1,992-2,090 of 25,000 with the
// default slice, 263-1,109 with this one (lag mean 88-92 → 14-69 µs).
//
// Every thread of the process gets it (threads the runtime starts later
// inherit it) for as long as a precise attack runs; then each thread gets
// back the slice it had (a thread started meanwhile, the kernel's
// default). A thread that is not SCHED_OTHER (the user ran loadlab under
// chrt) is left alone, and each thread's nice value is kept. Older kernels
// ignore sched_runtime for ordinary tasks: the pacer is then as before.

// shortSlice is the slice the precise pacer asks for: the kernel's
// shortest.
const shortSlice = 100_000 // ns

var sliced struct {
	sync.Mutex
	users int
	prev  map[int]uint64 // each thread's slice before, in ns
	dflt  uint64         // the kernel's default slice, as sched_getattr tells it
}

// useShortSlice gives the process's threads the short slice (see above)
// and returns the function that gives them their slices back once the
// last precise attack of the process ends.
func useShortSlice() (release func()) {
	sliced.Lock()
	defer sliced.Unlock()
	sliced.users++
	if sliced.users == 1 {
		sliced.prev = map[int]uint64{}
		eachThread(func(tid int) {
			if a, err := unix.SchedGetAttr(tid, 0); err == nil && a.Policy == unix.SCHED_NORMAL {
				sliced.prev[tid] = a.Runtime
			}
		})
		sliced.dflt = defaultSlice()
		eachThread(func(tid int) {
			if a, err := unix.SchedGetAttr(tid, 0); err == nil && a.Policy == unix.SCHED_NORMAL {
				setSlice(tid, a, shortSlice)
			}
		})
	}
	var once sync.Once
	return func() { once.Do(releaseShortSlice) }
}

func releaseShortSlice() {
	sliced.Lock()
	defer sliced.Unlock()
	sliced.users--
	if sliced.users > 0 {
		return
	}
	eachThread(func(tid int) {
		a, err := unix.SchedGetAttr(tid, 0)
		if err != nil || a.Policy != unix.SCHED_NORMAL || a.Runtime != shortSlice {
			return // not ours, or changed since by someone else
		}
		p, ok := sliced.prev[tid]
		if !ok || p == sliced.dflt {
			p = 0 // the default, which follows the kernel's setting
		}
		setSlice(tid, a, p)
	})
	sliced.prev = nil
}

// defaultSlice returns the slice an ordinary thread has by default: the
// kernel reports a thread's slice whether or not it was asked for, so it
// is learned by asking for the default on the calling thread (which is
// about to get the short slice anyway).
func defaultSlice() uint64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil || a.Policy != unix.SCHED_NORMAL {
		return 0
	}
	setSlice(tid, a, 0)
	if a, err = unix.SchedGetAttr(tid, 0); err != nil {
		return 0
	}
	return a.Runtime
}

// setSlice sets thread tid's slice (0: the kernel's default), keeping the
// rest of a, its attributes as sched_getattr gave them (its nice value).
func setSlice(tid int, a *unix.SchedAttr, ns uint64) {
	a.Size = uint32(unsafe.Sizeof(*a))
	a.Flags = 0
	a.Runtime = ns
	_ = unix.SchedSetAttr(tid, a, 0)
}

// eachThread calls f with the id of each of the process's threads.
func eachThread(f func(tid int)) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			f(tid)
		}
	}
}
