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
	tf := pt.fds[0]
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if tf.read(uintptr(tf.fd)) {
				b.Fatal("an unarmed timerfd was readable")
			}
		}
	})
	b.Run("unix.Read", func(b *testing.B) {
		for b.Loop() {
			if _, err := unix.Read(tf.fd, tf.buf[:]); err != unix.EAGAIN {
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

// TestPaceTimerArmsAhead: waits for instants a steady gap apart, each
// arming the next (sleepUntil's then), find their timer armed already
// (only the first arms its own), never end before the instant they
// return, and return the instant asked for; an instant off the armed one
// by more than rearmBelow gets its own timer.
func TestPaceTimerArmsAhead(t *testing.T) {
	pt := newPaceTimer()
	if pt == nil {
		t.Skip("no timerfd")
	}
	defer pt.close()
	const gap = 500 * time.Microsecond
	at := time.Now().Add(gap)
	for i := range 100 {
		then := at.Add(gap)
		woke, ok := pt.sleepUntil(at, then)
		if !ok {
			t.Fatalf("wait %d reported an interrupt", i)
		}
		if now := time.Now(); now.Before(woke) {
			t.Fatalf("wait %d ended %v before the instant it waited for", i, woke.Sub(now))
		}
		if d := woke.Sub(at); d > rearmBelow || d < -rearmBelow {
			t.Fatalf("wait %d waited for %v, %v from the instant asked for", i, woke, d)
		}
		at = then
		if i%2 == 1 { // the pacer's margin moved by a microsecond since it armed then
			at = at.Add(-time.Microsecond)
		}
	}
	if pt.missed != 1 {
		t.Errorf("%d of 100 waits armed their own timer; want only the first", pt.missed)
	}
	// Not what the last wait armed for it: a timer of its own.
	woke, ok := pt.sleepUntil(at.Add(10*rearmBelow), time.Time{})
	if !ok || pt.missed != 2 {
		t.Fatalf("a wait for another instant: ok %v, %d waits armed their own timer; want 2", ok, pt.missed)
	}
	if !woke.Equal(at.Add(10 * rearmBelow)) {
		t.Errorf("a wait with its own timer waited for %v, not the instant asked for %v", woke, at.Add(10*rearmBelow))
	}
}

// BenchmarkPaceTimerArmAhead compares the CPU of a 200 µs pace wait
// (5,000/s) armed as the pacer goes to sleep with one armed a wait
// ahead: run with perf stat on one CPU, task-clock per wait, e.g.
// go test -c -o /tmp/at ./internal/attack && perf stat -e task-clock
// taskset -c 0 /tmp/at -test.run - -test.bench 'PaceTimerArmAhead/ahead'
// -test.benchtime 20000x (ns/op is the gap plus the lateness).
func BenchmarkPaceTimerArmAhead(b *testing.B) {
	const gap = 200 * time.Microsecond
	for _, ahead := range []bool{false, true} {
		name := "asleep"
		if ahead {
			name = "ahead"
		}
		b.Run(name, func(b *testing.B) {
			pt := newPaceTimer()
			if pt == nil {
				b.Skip("no timerfd")
			}
			defer pt.close()
			at := time.Now().Add(gap)
			for b.Loop() {
				var then time.Time
				if ahead {
					then = at.Add(gap)
				}
				pt.sleepUntil(at, then)
				at = at.Add(gap)
				if now := time.Now(); at.Before(now) { // behind: start again from now
					at = now.Add(gap)
				}
			}
			b.ReportMetric(float64(pt.missed)/float64(b.N), "armed-asleep/op")
		})
	}
}
