//go:build linux && !(arm64 || riscv64 || loong64) && !loadlab_portable

package main

import "syscall"

// sysEpollWait is epoll_wait.
const sysEpollWait = syscall.SYS_EPOLL_WAIT
