//go:build !linux || loadlab_portable

package component

import "os/exec"

// dieWithParent has no portable equivalent outside Linux: components are
// stopped by Stop, which the runner always calls.
func dieWithParent(cmd *exec.Cmd) {}
