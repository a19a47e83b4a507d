//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd, once started, lead a process group of its own, so
// that signalGroup reaches the workers it forks.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to cmd's process
// group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
