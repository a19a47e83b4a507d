//go:build !loadlab_portable

package experiment

import "github.com/prometheus/procfs"

// cpuModel is the first processor's model name in /proc/cpuinfo ("" when
// it has none, as on many ARM machines).
func cpuModel(fs procfs.FS) string {
	cpus, err := fs.CPUInfo()
	if err != nil || len(cpus) == 0 {
		return ""
	}
	return cpus[0].ModelName
}
