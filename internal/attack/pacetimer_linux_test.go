//go:build linux && !loadlab_portable

package attack

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestPaceTimerWaitsAndInterrupts(t *testing.T) {
	pt := newPaceTimer()
	if pt == nil {
		t.Skip("no timerfd")
	}
	defer pt.close()
	for _, d := range []time.Duration{time.Millisecond, 3 * time.Millisecond} {
		start := time.Now()
		if !pt.wait(d) {
			t.Fatalf("wait(%v) reported an interrupt", d)
		}
		if took := time.Since(start); took < d {
			t.Fatalf("wait(%v) returned after %v", d, took)
		}
	}
	done := make(chan bool)
	go func() { done <- pt.wait(time.Hour) }()
	time.Sleep(10 * time.Millisecond)
	pt.interrupt()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("an interrupted wait reported its time up")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("interrupt did not end the wait")
	}
	if pt.wait(time.Millisecond) {
		t.Fatal("a wait after interrupt reported its time up")
	}
}

// BenchmarkPaceTimerBusy measures how late a 2 ms pace wait ends while
// every processor has goroutines to run (the runtime then looks at its
// poller only every 10 ms; the wait's deadline, a Go timer, is checked
// at every switch). go test -run - -bench PaceTimerBusy ./internal/attack
func BenchmarkPaceTimerBusy(b *testing.B) {
	pt := newPaceTimer()
	if pt == nil {
		b.Skip("no timerfd")
	}
	defer pt.close()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				x := 0
				for i := range 20000 { // ~10-20 µs of work, then a switch
					x += i
				}
				_ = x
				runtime.Gosched()
			}
		}()
	}
	late := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		pt.wait(2 * time.Millisecond)
		late = append(late, time.Since(start)-2*time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	b.ReportMetric(float64(late[len(late)/2].Microseconds()), "late-p50-µs")
	b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "late-p99-µs")
	b.ReportMetric(float64(late[len(late)-1].Microseconds()), "late-max-µs")
}

// BenchmarkPaceTimerRead compares the timerfd read the pacer makes at
// every wait (it finds nothing to read: EAGAIN) as a raw system call and
// through unix.Read, which enters the scheduler's system-call state.
// go test -run - -bench PaceTimerRead ./internal/attack
func BenchmarkPaceTimerRead(b *testing.B) {
	pt := newPaceTimer()
	if pt == nil {
		b.Skip("no timerfd")
	}
	defer pt.close()
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if pt.read(uintptr(pt.fd)) {
				b.Fatal("an unarmed timerfd was readable")
			}
		}
	})
	b.Run("unix.Read", func(b *testing.B) {
		for b.Loop() {
			if _, err := unix.Read(pt.fd, pt.buf[:]); err != unix.EAGAIN {
				b.Fatalf("read of an unarmed timerfd: %v", err)
			}
		}
	})
}

// BenchmarkPaceTimerIdle measures how late a 200 µs pace wait (the gap
// between requests at 5,000/s) ends on an otherwise idle process.
// go test -run - -bench PaceTimerIdle ./internal/attack
func BenchmarkPaceTimerIdle(b *testing.B) {
	pt := newPaceTimer()
	if pt == nil {
		b.Skip("no timerfd")
	}
	defer pt.close()
	const d = 200 * time.Microsecond
	late := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		pt.wait(d)
		late = append(late, time.Since(start)-d)
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	b.ReportMetric(float64(late[len(late)/2].Microseconds()), "late-p50-µs")
	b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "late-p99-µs")
}
