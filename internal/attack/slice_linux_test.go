//go:build linux && !loadlab_portable

package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadSlices returns each thread's slice in ns, as the kernel reports it.
func threadSlices(t *testing.T) map[int]uint64 {
	t.Helper()
	m := map[int]uint64{}
	eachThread(func(tid int) {
		if a, err := unix.SchedGetAttr(tid, 0); err == nil {
			m[tid] = a.Runtime
		}
	})
	if len(m) == 0 {
		t.Fatal("no thread's scheduling attributes could be read")
	}
	return m
}

// customSlices says whether the kernel takes a slice for an ordinary task
// (Linux 6.12 and later): it sets and reads back one on a locked thread.
func customSlices(t *testing.T) bool {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatalf("sched_getattr: %v", err)
	}
	prev := a.Runtime
	setSlice(tid, a, 200_000)
	b, err := unix.SchedGetAttr(tid, 0)
	setSlice(tid, a, prev)
	return err == nil && b.Runtime == 200_000
}

// A precise attack gives every thread of the process the short slice while
// it runs, keeps each thread's nice value, and gives each thread its own
// slice back when the last precise attack ends (a slice someone set
// included; the default to a thread started meanwhile).
func TestPreciseAttackAsksForAShortSlice(t *testing.T) {
	if !customSlices(t) {
		t.Skip("this kernel ignores a slice for ordinary tasks (Linux < 6.12): nothing to check")
	}
	dflt := defaultSlice()
	// A thread of the test's own with a slice and a nice value of its own.
	ready, done := make(chan int), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := unix.Gettid()
		a, _ := unix.SchedGetAttr(tid, 0)
		a.Nice = 3
		setSlice(tid, a, 300_000)
		ready <- tid
		<-done
	}()
	own := <-ready
	defer close(done)
	before := threadSlices(t)
	if before[own] != 300_000 {
		t.Fatalf("the test's thread has slice %d ns, want the 300 µs it set", before[own])
	}

	var during atomic.Pointer[map[int]uint64]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if during.Load() == nil {
			m := threadSlices(t)
			during.Store(&m)
		}
	}))
	defer srv.Close()
	o := DefaultOptions()
	o.Pacer = PacerPrecise
	o.Schedule = sched(t, "50/s", 200*time.Millisecond)
	release := useShortSlice() // a second precise attack, still running after the first
	rs, _ := run(t, context.Background(), static(t, "GET", srv.URL), o)
	if len(rs) == 0 {
		t.Fatal("no results")
	}
	for tid, s := range *during.Load() {
		if s != shortSlice {
			t.Errorf("thread %d had slice %d ns during the precise attack, want %d", tid, s, shortSlice)
		}
	}
	for tid, s := range threadSlices(t) {
		if s != shortSlice {
			t.Errorf("thread %d has slice %d ns while another precise attack runs, want %d", tid, s, shortSlice)
		}
	}
	release()
	release() // twice: a no-op
	for tid, s := range threadSlices(t) {
		want, ok := before[tid]
		if !ok {
			want = dflt // started during the attack
		}
		if s != want {
			t.Errorf("thread %d has slice %d ns after the precise attacks, want %d as before", tid, s, want)
		}
	}
	if a, err := unix.SchedGetAttr(own, 0); err != nil || a.Nice != 3 {
		t.Errorf("the test's thread: nice %d (%v), want 3 kept", a.Nice, err)
	}
}
