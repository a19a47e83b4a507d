package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// key names one series: a process and a resource.
type key struct{ proc, resource string }

// point is one reading, at a time since the start.
type point struct {
	at time.Duration
	v  float64
}

// readProc reads a process's resident memory (MiB), open files and threads
// from /proc; a process that has exited gives nothing.
func readProc(pid int) map[string]float64 {
	out := map[string]float64{}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			out["rss MiB"] = n / 1024 // kB
		case "Threads":
			out["threads"] = n
		}
	}
	if _, ok := out["rss MiB"]; !ok {
		return map[string]float64{} // a zombie: exited, not yet reaped
	}
	if ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd"); err == nil {
		out["open files"] = float64(len(ents))
	}
	return out
}

// goroutines reads go_goroutines from a Prometheus page.
func goroutines(ctx context.Context, url string) (float64, bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return n, err == nil
		}
	}
	return 0, false
}
