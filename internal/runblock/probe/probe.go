package probe

import (
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/runblock"
)

// Every is how often a Probe reads the CPU times.
const Every = 250 * time.Millisecond

// SaturatedCore is the share of one core the generator's threads must use
// in a sampling interval for it to count as saturated.
const SaturatedCore = 0.90

// minInterval is the shortest last interval (at Stop) counted for
// saturation: shorter ones are too coarse to say.
const minInterval = 50 * time.Millisecond

// Probe measures the machine's part of a run's health while it runs.
type Probe struct {
	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex
	start    reading
	last     reading
	hot, n   int
	stopped  bool
	result   runblock.Health
	every    time.Duration
	readSelf func() (time.Duration, bool)
}

type reading struct {
	t       time.Time
	cpu     time.Duration
	cpuOK   bool
	machine Machine
	machOK  bool
}

func read(self func() (time.Duration, bool)) reading {
	r := reading{t: time.Now()}
	r.cpu, r.cpuOK = self()
	m, err := ReadMachine()
	r.machine, r.machOK = m, err == nil
	return r
}

// Start starts a probe reading every Every.
func Start() *Probe { return start(Every, selfCPU) }

func start(every time.Duration, self func() (time.Duration, bool)) *Probe {
	p := &Probe{stop: make(chan struct{}), done: make(chan struct{}), every: every, readSelf: self}
	p.start = read(self)
	p.last = p.start
	go p.loop()
	return p
}

func (p *Probe) loop() {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r := read(p.readSelf)
			p.mu.Lock()
			p.interval(r, false)
			p.mu.Unlock()
		case <-p.stop:
			return
		}
	}
}

// interval counts the interval from the last reading to r, unless it is
// the last one (at Stop) and too short to say. Called with mu held.
func (p *Probe) interval(r reading, last bool) {
	if dt := r.t.Sub(p.last.t); r.cpuOK && p.last.cpuOK && dt > 0 && (!last || dt >= minInterval) {
		p.n++
		if float64(r.cpu-p.last.cpu) >= SaturatedCore*float64(dt) {
			p.hot++
		}
	}
	p.last = r
}

// Stop stops the probe and returns what it measured: the generator's CPU
// in cores, the share of intervals it saturated a core, the machine's
// busy and steal shares; Unknown what could not be read, and the lag
// fields Unknown (the results tell them: Health.WithMachine). Calling
// it again returns the same.
func (p *Probe) Stop() runblock.Health {
	p.mu.Lock()
	if p.stopped {
		defer p.mu.Unlock()
		return p.result
	}
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	r := read(p.readSelf)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.interval(r, true)
	h := runblock.UnknownHealth()
	if wall := r.t.Sub(p.start.t); r.cpuOK && p.start.cpuOK && wall > 0 {
		h.GeneratorCPU = float64(r.cpu-p.start.cpu) / float64(wall)
		if p.n > 0 {
			h.GeneratorSaturated = float64(p.hot) / float64(p.n)
		}
	}
	if total := r.machine.Total - p.start.machine.Total; r.machOK && p.start.machOK && total > 0 {
		h.Busy = clamp01((r.machine.Busy - p.start.machine.Busy) / total)
		h.Steal = clamp01((r.machine.Steal - p.start.machine.Steal) / total)
	}
	p.stopped, p.result = true, h
	return h
}

func clamp01(f float64) float64 { return min(max(f, 0), 1) }

// GeneratorMeasured reports whether this build reads the process's CPU
// time (Linux, not built with loadlab_portable): elsewhere the
// generator's CPU and saturated share are Unknown.
func GeneratorMeasured() bool {
	_, ok := selfCPU()
	return ok
}
