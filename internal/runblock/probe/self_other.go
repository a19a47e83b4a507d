//go:build !linux || loadlab_portable

package probe

import "time"

// selfCPU is not read here: the generator's CPU shares are Unknown.
func selfCPU() (time.Duration, bool) { return 0, false }
