//go:build !loadlab_portable

package component

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks Linux to send SIGTERM to the component if loadlab
// itself dies (even by SIGKILL), so no component outlives a run.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
