package sampler

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
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

// readProc returns a process's CPU time in clock ticks and its RSS in bytes.
func readProc(pid int) (ticks, rss float64, err error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, os.ErrInvalid
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state): utime is field 14, stime 15, rss 24 (pages).
	if len(f) < 22 {
		return 0, 0, os.ErrInvalid
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	pages, _ := strconv.ParseFloat(f[21], 64)
	return ut + st, pages * float64(os.Getpagesize()), nil
}

// readStat returns the machine's busy and total CPU ticks from /proc/stat.
func readStat() (busy, total float64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, os.ErrInvalid
	}
	for i, x := range f[1:] {
		v, _ := strconv.ParseFloat(x, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total, nil
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
