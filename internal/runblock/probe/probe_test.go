package probe

import (
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/runblock"
)

// burn keeps one goroutine on the CPU until stop is set.
func burn(stop *atomic.Bool, done chan<- struct{}) {
	x := 1.0
	for !stop.Load() {
		for range 10000 {
			x = x*1.0000001 + 1e-9
		}
	}
	_ = x
	done <- struct{}{}
}

func TestProbeMeasuresTheGeneratorsCPU(t *testing.T) {
	p := Start()
	var stop atomic.Bool
	done := make(chan struct{})
	go burn(&stop, done)
	// at least 4 sampling intervals, however loaded the machine
	deadline := time.Now().Add(time.Second + 50*time.Millisecond)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	<-done
	h := p.Stop()
	if !GeneratorMeasured() {
		if h.GeneratorCPU != runblock.Unknown || h.GeneratorSaturated != runblock.Unknown {
			t.Errorf("a build that cannot read the process's CPU time measured %+v", h)
		}
		return
	}
	if h.GeneratorCPU <= 0.05 || h.GeneratorCPU > float64(runtime.NumCPU())+0.5 {
		t.Errorf("generator CPU %v cores while one goroutine burned", h.GeneratorCPU)
	}
	if h.GeneratorSaturated < 0 || h.GeneratorSaturated > 1 {
		t.Errorf("saturated share %v", h.GeneratorSaturated)
	}
	if h.Busy <= 0 || h.Busy > 1 || h.Steal < 0 || h.Steal > 1 {
		t.Errorf("machine shares busy %v steal %v", h.Busy, h.Steal)
	}
	if h.LagP99 != time.Duration(runblock.Unknown) {
		t.Errorf("the probe cannot know the lag: %v", h.LagP99)
	}
	if again := p.Stop(); again != h {
		t.Errorf("a second Stop returned %+v, the first %+v", again, h)
	}
}

// TestProbeCountsSaturatedIntervals feeds the probe a CPU clock that runs
// at a full core for its first readings and idles after: the share of
// saturated intervals follows.
func TestProbeCountsSaturatedIntervals(t *testing.T) {
	var cpu atomic.Int64
	var reads atomic.Int64
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	self := func() (time.Duration, bool) {
		now := time.Now().UnixNano()
		prev := last.Swap(now)
		if reads.Add(1) <= 3 { // the start reading and two intervals: a full core
			cpu.Add(now - prev)
		}
		return time.Duration(cpu.Load()), true
	}
	p := start(60*time.Millisecond, self)
	for reads.Load() < 7 {
		time.Sleep(5 * time.Millisecond)
	}
	h := p.Stop()
	// every interval counts but the last when Stop came under 50 ms after it
	n := float64(reads.Load() - 1)
	if s := h.GeneratorSaturated; math.Abs(s-2/n) > 1e-9 && math.Abs(s-2/(n-1)) > 1e-9 {
		t.Errorf("saturated share %v, want 2 intervals of %v (or of %v)", s, n, n-1)
	}
	if h.GeneratorCPU <= 0 || h.GeneratorCPU >= 1 {
		t.Errorf("generator CPU %v", h.GeneratorCPU)
	}
}

func TestReadMachine(t *testing.T) {
	m, err := ReadMachine()
	if runtime.GOOS != "linux" {
		if err == nil {
			t.Skip("a /proc outside Linux")
		}
		return
	}
	if err != nil || m.Total <= 0 || m.Busy > m.Total || m.Steal > m.Busy {
		t.Errorf("ReadMachine = %+v, %v", m, err)
	}
}
