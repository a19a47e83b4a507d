package main

import "os/exec"

// ownGroup does nothing: Windows has no process groups to signal.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup ends cmd's process (Windows has no SIGTERM: it is killed
// either way).
func signalGroup(cmd *exec.Cmd, kill bool) { _ = cmd.Process.Kill() }
