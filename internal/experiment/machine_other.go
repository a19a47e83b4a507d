//go:build !linux || loadlab_portable

package experiment

import "github.com/prometheus/procfs"

// cpuModel is unknown where procfs cannot read /proc/cpuinfo.
func cpuModel(procfs.FS) string { return "" }
