package site

import "github.com/loadlab/loadlab/internal/runblock"

// healthText is a run's machine health for its page: the measured parts
// in one line, or why there are none.
func healthText(h runblock.Health) string {
	if l := h.Line(); l != "" {
		return l
	}
	return "not measured (the run was archived before loadlab kept it)"
}

// noisyWhy is why the machine made a run noisy, "" when it did not.
func noisyWhy(h runblock.Health) string {
	if noisy, why := h.Judge(); noisy {
		return why
	}
	return ""
}
