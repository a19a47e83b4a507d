package experiment

import (
	"os"
	"runtime"
	"strings"

	"github.com/prometheus/procfs"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// machine describes where the run happens, for the report's setup.
func machine() summary.Machine {
	m := summary.Machine{OS: runtime.GOOS + "/" + runtime.GOARCH, Cores: runtime.NumCPU(), Go: runtime.Version()}
	m.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return m
	}
	m.CPU = cpuModel(fs)
	if mi, err := fs.Meminfo(); err == nil && mi.MemTotal != nil { // in kB
		m.MemoryGB = float64(int(float64(*mi.MemTotal)/1024/1024*10)) / 10
	}
	return m
}
