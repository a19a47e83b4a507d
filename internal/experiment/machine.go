package experiment

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// machine describes where the run happens, for the report's setup.
func machine() summary.Machine {
	m := summary.Machine{OS: runtime.GOOS + "/" + runtime.GOARCH, Cores: runtime.NumCPU(), Go: runtime.Version()}
	m.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
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
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 2 && f[0] == "MemTotal:" {
				var kb float64
				for _, c := range f[1] {
					kb = kb*10 + float64(c-'0')
				}
				m.MemoryGB = float64(int(kb/1024/1024*10)) / 10
			}
		}
		f.Close()
	}
	return m
}
