package sampler

import (
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
)

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

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
		ticks, rss, err := readProc(p.PID)
		if err != nil {
			continue // exited; the runner notices and reports it
		}
		s.add(Sample{Time: now, Series: p.Name + " " + SeriesRSS, Unit: "MiB", Value: rss / (1 << 20)})
		s.mu.Lock()
		prev := s.prevCPU[p.PID]
		s.prevCPU[p.PID] = cpuReading{t: now, ticks: ticks, ok: true}
		s.mu.Unlock()
		if dt := now.Sub(prev.t).Seconds(); prev.ok && dt > 0 && ticks >= prev.ticks {
			s.add(Sample{Time: now, Series: p.Name + " " + SeriesCPU, Unit: "CPU %", Value: 100 * (ticks - prev.ticks) / clockTicks / dt})
		}
	}
	s.sampleTCP(now, procs)
	if busy, total, err := readStat(); err == nil {
		s.mu.Lock()
		prev := s.prevSys
		s.prevSys = cpuReading{t: now, ticks: busy, total: total, ok: true}
		s.mu.Unlock()
		if prev.ok && total > prev.total {
			s.add(Sample{Time: now, Series: SeriesHost, Unit: "CPU %", Value: 100 * (busy - prev.ticks) / (total - prev.total)})
		}
	}
}

// procFS reads /proc; nil where there is none (then no CPU or RSS series).
var procFS = func() *procfs.FS {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil
	}
	return &fs
}()

// readProc returns a process's CPU time in clock ticks and its RSS in bytes.
func readProc(pid int) (ticks, rss float64, err error) {
	if procFS == nil {
		return 0, 0, os.ErrNotExist
	}
	p, err := procFS.Proc(pid)
	if err != nil {
		return 0, 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, 0, err
	}
	return float64(st.UTime + st.STime), float64(st.ResidentMemory()), nil
}

// readStat returns the machine's busy and total CPU time from /proc/stat
// (in seconds: only their ratio is used); busy is all but idle and iowait.
func readStat() (busy, total float64, err error) {
	if procFS == nil {
		return 0, 0, os.ErrNotExist
	}
	st, err := procFS.Stat()
	if err != nil {
		return 0, 0, err
	}
	c := st.CPUTotal
	busy = c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal + c.Guest + c.GuestNice
	return busy, busy + c.Idle + c.Iowait, nil
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
