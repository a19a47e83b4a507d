//go:build linux && (arm64 || riscv64 || loong64) && !loadlab_portable

package main

import "golang.org/x/sys/unix"

// sysEpollWait is epoll_pwait, called without a signal mask (its two
// extra arguments 0): the same call, since these systems have no
// epoll_wait.
const sysEpollWait = unix.SYS_EPOLL_PWAIT
