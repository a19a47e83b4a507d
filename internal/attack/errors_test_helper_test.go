package attack

import "syscall"

var errAddrInUse = syscall.EADDRINUSE
