package machinecost

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/model"
)

// Machine names what the costs depend on: the CPU model, the cores and
// the kernel.
type Machine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	Kernel string `json:"kernel"`
}

// This is the machine loadlab runs on.
func This() Machine {
	m := Machine{CPU: runtime.GOARCH, Cores: runtime.NumCPU(), Kernel: runtime.GOOS}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = runtime.GOOS + " " + strings.TrimSpace(string(b))
	}
	return m
}

// Key is the machine's cache key.
func (m Machine) Key() string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", m.CPU, m.Cores, m.Kernel)))
	return hex.EncodeToString(h[:8])
}

// String names the machine for a reader: "AMD EPYC, 2 cores, linux 6.1".
func (m Machine) String() string {
	return fmt.Sprintf("%s, %d cores, %s", m.CPU, m.Cores, m.Kernel)
}

// cacheVersion is the cached file's version: another is measured again.
const cacheVersion = 1

// Cached is a machine's measured costs as the cache keeps them.
type Cached struct {
	Version  int       `json:"version"`
	Machine  Machine   `json:"machine"`
	Measured time.Time `json:"measured"`
	// Load is the machine's load average (1 minute) when measured, and
	// Cores its cores: a machine busier than its cores measures slow.
	Load   float64     `json:"load"`
	Points []Point     `json:"points"`
	Costs  model.Costs `json:"costs"`
}

// Modes of For: the -wake flag's values.
const (
	ModeMachine   = "machine"   // this machine's costs, measured once and cached
	ModeMeasure   = "measure"   // this machine's costs, measured again now (and cached)
	ModeReference = "reference" // the reference machine's costs: the same predictions everywhere
)

// Dir is where the costs are cached: the user's cache directory's
// loadlab folder.
func Dir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "loadlab"), nil
}

// For returns the costs the model should assume in mode, and the
// sentence that says which they are. In ModeMachine, a cached
// measurement of this machine in dir is used, or the probe is made and
// cached; when the probe fails, the reference costs are used and the
// sentence says why.
func For(ctx context.Context, dir, mode string) (model.Costs, string) {
	reference := "costs of a reference machine (a shared 2-core VM): predictions near the knee assume its speed"
	switch mode {
	case ModeReference:
		return model.DefaultCosts, reference
	case ModeMachine, ModeMeasure:
	default:
		return model.DefaultCosts, reference
	}
	m := This()
	file := filepath.Join(dir, "costs-"+m.Key()+".json")
	said := func(c Cached) string {
		s := fmt.Sprintf("costs measured on this machine (%s) at %s", c.Machine, c.Measured.Format("2006-01-02 15:04 UTC"))
		if c.Load > float64(c.Machine.Cores) {
			s += fmt.Sprintf(", while it was busy (load average %.1f): measure again on a quiet machine with -wake measure", c.Load)
		}
		return s
	}
	if mode == ModeMachine {
		if b, err := os.ReadFile(file); err == nil {
			var c Cached
			if json.Unmarshal(b, &c) == nil && c.Version == cacheVersion && c.Machine == m && c.Costs.Wake != nil && len(c.Costs.Wake.Points) > 0 {
				return c.Costs, said(c)
			}
		}
	}
	k, points, err := Measure(ctx)
	if err != nil {
		return model.DefaultCosts, reference + fmt.Sprintf(" (this machine's could not be measured: %v)", err)
	}
	c := Cached{Version: cacheVersion, Machine: m, Measured: time.Now().UTC(), Load: loadAverage(), Points: points, Costs: k}
	if b, err := json.MarshalIndent(c, "", "  "); err == nil {
		write(dir, file, append(b, '\n'))
	}
	return k, said(c)
}

// write replaces file with b at once (a temporary file renamed), so that
// another loadlab reading the cache meanwhile reads the old or the new.
func write(dir, file string, b []byte) {
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".costs-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil && cerr == nil && os.Rename(tmp.Name(), file) == nil {
		return
	}
	os.Remove(tmp.Name())
}

// loadAverage is the 1-minute load average (0 where unknown).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}
