package sampler

import (
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/runblock/probe"
)

type cpuReading struct {
	t     time.Time
	ticks float64 // process: utime+stime; machine: busy ticks
	total float64 // machine: all ticks
	ok    bool
}

// Generator series names: the generator's CPU and whether it saturated.
const (
	SeriesCPU  = "cpu %"
	SeriesRSS  = "rss MiB"
	SeriesHost = "host cpu busy %"
)

func (s *Sampler) sampleProcs(now time.Time) {
	procs := append([]Proc{{Name: s.cfg.Generator, PID: os.Getpid()}}, s.cfg.Procs...)
	for _, p := range procs {
		ticks, rss, err := probe.ReadProc(p.PID)
		if err != nil {
			continue // exited; the runner notices and reports it
		}
		s.add(Sample{Time: now, Series: p.Name + " " + SeriesRSS, Unit: "MiB", Value: rss / (1 << 20)})
		s.mu.Lock()
		prev := s.prevCPU[p.PID]
		s.prevCPU[p.PID] = cpuReading{t: now, ticks: ticks, ok: true}
		s.mu.Unlock()
		if dt := now.Sub(prev.t).Seconds(); prev.ok && dt > 0 && ticks >= prev.ticks {
			s.add(Sample{Time: now, Series: p.Name + " " + SeriesCPU, Unit: "CPU %", Value: 100 * (ticks - prev.ticks) / probe.ClockTicks / dt})
		}
	}
	s.sampleTCP(now, procs)
	if m, err := probe.ReadMachine(); err == nil {
		busy, total := m.Busy, m.Total
		s.mu.Lock()
		prev := s.prevSys
		s.prevSys = cpuReading{t: now, ticks: busy, total: total, ok: true}
		s.mu.Unlock()
		if prev.ok && total > prev.total {
			s.add(Sample{Time: now, Series: SeriesHost, Unit: "CPU %", Value: 100 * (busy - prev.ticks) / (total - prev.total)})
		}
	}
}

// GeneratorSaturated reports whether the generator's CPU readings show it
// was the bottleneck: above 85% of the cores it may use in more than a
// quarter of the readings, or the machine's CPU above 95% as often.
func GeneratorSaturated(samples []Sample, generator string) (bool, string) {
	cores := float64(runtime.GOMAXPROCS(0))
	var n, hot, hostN, hostHot int
	peak := 0.0
	for _, s := range samples {
		switch s.Series {
		case generator + " " + SeriesCPU:
			n++
			peak = max(peak, s.Value)
			if s.Value > 85*cores {
				hot++
			}
		case SeriesHost:
			hostN++
			if s.Value > 95 {
				hostHot++
			}
		}
	}
	switch {
	case n > 0 && hot*4 > n:
		return true, "the load generator used " + strconv.FormatFloat(peak, 'f', 0, 64) + "% CPU (of " + strconv.Itoa(int(cores)) + " cores): it may have been the bottleneck"
	case hostN > 0 && hostHot*4 > hostN:
		return true, "the machine's CPU was above 95% busy for more than a quarter of the run: generator, proxy and origin share the cores, so latencies include CPU contention"
	}
	return false, ""
}
