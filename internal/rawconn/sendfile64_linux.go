//go:build linux && (386 || arm || mips || mipsle) && !loadlab_portable

package rawconn

import "syscall"

// sysSendfile is sendfile64 on 32-bit systems: plain sendfile's offset is a
// 32-bit long there, and SendFileAt passes a pointer to an int64.
const sysSendfile = syscall.SYS_SENDFILE64
