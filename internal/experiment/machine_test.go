package experiment

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMachineReadsProc checks the report's machine line against
// /proc/cpuinfo and /proc/meminfo read here line by line.
func TestMachineReadsProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	m := machine()
	if m.Cores != runtime.NumCPU() || m.OS != runtime.GOOS+"/"+runtime.GOARCH || m.Go != runtime.Version() {
		t.Errorf("machine %+v", m)
	}
	wantCPU := ""
	if model, ok := procField(t, "/proc/cpuinfo", "model name"); ok {
		wantCPU = model
	}
	if m.CPU != wantCPU {
		t.Errorf("CPU %q, /proc/cpuinfo says %q", m.CPU, wantCPU)
	}
	total, ok := procField(t, "/proc/meminfo", "MemTotal")
	if !ok {
		t.Fatal("/proc/meminfo has no MemTotal")
	}
	kb, err := strconv.ParseFloat(strings.TrimSuffix(total, " kB"), 64)
	if err != nil {
		t.Fatalf("MemTotal %q: %v", total, err)
	}
	if want := float64(int(kb/1024/1024*10)) / 10; m.MemoryGB != want || want <= 0 {
		t.Errorf("memory %v GB, /proc/meminfo says %v GB", m.MemoryGB, want)
	}
}

// procField is the value of the first "key: value" line of file.
func procField(t *testing.T, file, key string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
